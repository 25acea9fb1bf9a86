/*
 * md2man.c: a man page from one of docs/'s Markdown files, at build time:
 *
 *   md2man NAME SECTION TITLE < docs/cli.md > flux.1
 *
 * The Markdown of docs/ only: headings, paragraphs, `- ` and `1. ` lists,
 * fenced code, pipe tables (a row a paragraph, its cells joined by " | "),
 * `code`, **bold**, *emphasis*, [text](link) (the text) and block quotes.
 * The first heading becomes NAME's one-line description; `##` headings are
 * sections (.SH), `###` subsections (.SS).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes text with roff's special characters escaped and the inline
 * Markdown turned into fonts. */
static void inline_text(const char *s, size_t n)
{
    bool code = false, bold = false, em = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '`') {
            code = !code;
            fputs(code ? "\\fB" : "\\fR", stdout);
            continue;
        }
        if (!code && c == '*' && i + 1 < n && s[i + 1] == '*') {
            bold = !bold;
            fputs(bold ? "\\fB" : "\\fR", stdout);
            i++;
            continue;
        }
        if (!code && c == '*' && (em || (i + 1 < n && !isspace((unsigned char)s[i + 1])))) {
            em = !em;
            fputs(em ? "\\fI" : "\\fR", stdout);
            continue;
        }
        if (!code && c == '[') { /* [text](link): the text */
            const char *close = memchr(s + i, ']', n - i);
            if (close && (size_t)(close - s) + 1 < n && close[1] == '(') {
                const char *end = memchr(close, ')', n - (size_t)(close - s));
                if (end) {
                    inline_text(s + i + 1, (size_t)(close - s) - i - 1);
                    i = (size_t)(end - s);
                    continue;
                }
            }
        }
        if (c == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) /* \| \* */
            c = s[++i];
        if (c == '\\')
            fputs("\\e", stdout);
        else if (c == '-')
            fputs("\\-", stdout);
        else
            putchar(c);
    }
    if (code || bold || em)
        fputs("\\fR", stdout);
}

/* A line of running text: a leading dot or quote would be a request. */
static void text_line(const char *s, size_t n)
{
    if (n && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", stdout);
    inline_text(s, n);
    putchar('\n');
}

static bool starts(const char *line, const char *prefix)
{
    return strncmp(line, prefix, strlen(prefix)) == 0;
}

/* A table row "| a | b |" as "a | b"; a separator row "| --- |" as nothing. */
static void table_row(const char *line, size_t n)
{
    if (strspn(line, "|-: \t") >= n)
        return;
    fputs(".PP\n", stdout);
    const char *p = line + 1, *end = line + n;
    while (end > p && (end[-1] == '|' || isspace((unsigned char)end[-1])))
        end--;
    bool first = true;
    while (p < end) {
        const char *bar = p;
        bool code = false; /* a pipe in `code` or written \| is part of the cell */
        for (; bar < end && (code || *bar != '|' || bar[-1] == '\\'); bar++)
            code ^= *bar == '`';
        while (p < bar && isspace((unsigned char)*p))
            p++;
        const char *q = bar;
        while (q > p && isspace((unsigned char)q[-1]))
            q--;
        if (!first)
            fputs(" | ", stdout);
        inline_text(p, (size_t)(q - p));
        first = false;
        p = bar + 1;
    }
    putchar('\n');
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: md2man NAME SECTION TITLE < FILE.md\n");
        return 2;
    }
    printf(".TH %s %s \"\" \"Flux\" \"%s\"\n", argv[1], argv[2], argv[3]);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool fenced = false, named = false, in_list = false, blank = true;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        size_t n = (size_t)len;
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (starts(line, "```")) {
            fputs(fenced ? ".fi\n.RE\n" : ".PP\n.RS 4\n.nf\n", stdout);
            fenced = !fenced;
            continue;
        }
        if (fenced) {
            text_line(line, n);
            continue;
        }
        const char *s = line;
        while (*s == ' ')
            s++;
        size_t indent = (size_t)(s - line), m = n - indent;
        if (m == 0) {
            blank = true;
            continue;
        }
        bool after_blank = blank;
        blank = false;
        if (starts(s, "# ")) {
            if (!named) {
                printf(".SH NAME\n%s \\- ", argv[1]);
                text_line(s + 2, m - 2);
                named = true;
            }
            continue;
        }
        if (starts(s, "## ")) {
            fputs(".SH ", stdout);
            for (const char *c = s + 3; *c; c++) /* sections are upper case */
                putchar(*c == '`' ? '"' : toupper((unsigned char)*c));
            putchar('\n');
            continue;
        }
        if (starts(s, "### ") || starts(s, "#### ")) {
            fputs(".SS ", stdout);
            text_line(strchr(s, ' ') + 1, strlen(strchr(s, ' ') + 1));
            continue;
        }
        if (*s == '|') {
            table_row(s, m);
            continue;
        }
        if (starts(s, "> ")) {
            text_line(s + 2, m - 2);
            continue;
        }
        if (starts(s, "- ") || starts(s, "* ")) {
            fputs(indent ? ".IP \\(bu 6\n" : ".IP \\(bu 2\n", stdout);
            text_line(s + 2, m - 2);
            in_list = true;
            continue;
        }
        size_t digits = strspn(s, "0123456789");
        if (digits && s[digits] == '.' && s[digits + 1] == ' ') {
            printf(".IP %.*s. 4\n", (int)digits, s);
            text_line(s + digits + 2, m - digits - 2);
            in_list = true;
            continue;
        }
        if (indent == 0)
            in_list = false;
        if (after_blank && !in_list) /* a new paragraph */
            fputs(".PP\n", stdout);
        text_line(s, m);
    }
    free(line);
    return 0;
}
