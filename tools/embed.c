/*
 * embed.c: turns a file into a C array, so the prelude written in Flux is
 * part of the binary and needs no install path. Run by the Makefile:
 *     embed SYMBOL FILE > out.c
 * defines `const char SYMBOL[]` (NUL-terminated) and `const unsigned long
 * SYMBOL_len`.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: embed SYMBOL FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    printf("/* generated from %s by tools/embed.c; do not edit */\n", argv[2]);
    printf("const char %s[] = {", argv[1]);
    unsigned long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        printf("%s%d,", n % 16 ? "" : "\n    ", c);
        n++;
    }
    printf("\n    0};\nconst unsigned long %s_len = %lu;\n", argv[1], n);
    fclose(f);
    return 0;
}
