// std.text: string operations (docs/stdlib.md). `import std.text`.

intent words(s: String) -> List[String]:
    constraints:
        - result = split(s)

intent word_total(s: String) -> Natural:
    constraints:
        - result = len(split(s))

intent is_palindrome_text(s: String) -> Bool:
    constraints:
        - result = lower(s) = reverse(lower(s))

intent repeat(s: String, n: Natural) -> String:
    constraints:
        - repeat(s, 0) = ""
        - repeat(s, n) = s ++ repeat(s, n - 1)

intent count_substring(s: String, part: String) -> Natural:
    constraints:
        - result = if len(part) = 0 then 0 else count(i for i in 0..len(s) - len(part) + 1 if s[i..i + len(part)] = part)

intent title_case(s: String) -> String:
    constraints:
        - result = join([upper(w[0..1]) ++ lower(w[1..len(w)]) for w in split(s)], " ")

intent vowel_count(s: String) -> Natural:
    constraints:
        - result = count(c for c in chars(lower(s)) if c = "a" or c = "e" or c = "i" or c = "o" or c = "u")
