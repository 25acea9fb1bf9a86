# The examples of docs/language.md run as written: every ```flux block is
# part of one program, doc.flux, every ```csv NAME block a data file next to
# it, and every ```console block holds `$ flux run doc.flux 'EXPR'` lines,
# each followed by the output it must print (stdout, then stderr; a
# position in doc.flux matches any line and column).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 - "$root/docs/language.md" "$FLUX" <<'PY' || exit 1
import re, subprocess, sys, shlex
doc, flux = sys.argv[1], sys.argv[2]
text = open(doc, encoding="utf-8").read()
blocks = re.findall(r"^```(\w+)([^\n]*)\n(.*?)^```$", text, re.S | re.M)
program, calls = [], []
for lang, info, body in blocks:
    if lang == "flux":
        program.append(body)
    elif lang == "csv":
        open(info.strip(), "w").write(body)
    elif lang == "console":
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            assert lines[i].startswith("$ flux "), lines[i]
            j = i + 1
            while j < len(lines) and not lines[j].startswith("$ "):
                j += 1
            calls.append((lines[i][2:], "\n".join(lines[i + 1:j])))
            i = j
open("doc.flux", "w").write("\n".join(program))
bad = 0
for cmd, want in calls:
    argv = shlex.split(cmd)
    argv[0] = flux
    p = subprocess.run(argv, capture_output=True, text=True)
    got = (p.stdout + p.stderr).rstrip("\n")
    # doc.flux is the blocks joined: its line numbers move as the page grows
    pos = lambda t: re.sub(r"doc\.flux:\d+:\d+:", "doc.flux:L:C:", t)
    if pos(got) != pos(want):
        print("docs/language.md: `%s`\n  want: %s\n  got:  %s" % (cmd, want, got))
        bad += 1
print("%d examples of docs/language.md run, %d differ" % (len(calls), bad))
sys.exit(1 if bad or not calls else 0)
PY
