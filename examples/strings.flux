// Strings: indexing, slicing, conversions, splitting and joining
// (docs/language.md §5). Positions and lengths count code points.

// Is c one ASCII letter, whatever its case?
intent is_letter(c: String) -> Bool:
    constraints:
        - result = len(c) = 1 and "a" <= lower(c) <= "z"

// The letters of s, lower-cased: "A man, a plan" gives "amanaplan".
intent letters(s: String) -> String:
    constraints:
        - letters("") = ""
        - letters(s) = (if is_letter(s[0]) then lower(s[0]) else "") ++ letters(s[1..len(s)])
        - len(result) <= len(s)

// Does t read the same both ways? Each position against its mirror (and,
// checked on every call, t against its reverse).
intent mirrored(t: String) -> Bool:
    constraints:
        - result = forall i in 0..len(t) div 2: t[i] = t[len(t) - 1 - i]
        - (t = reverse(t)) = result

// A palindrome, ignoring case and everything but letters.
intent is_palindrome(s: String) -> Bool:
    constraints:
        - result = mirrored(letters(s))

// How many times `word` occurs among the words of `text`, in any case.
intent word_count(text: String, word: String) -> Natural:
    constraints:
        - result = count(w for w in split(lower(text)) if w = lower(word))

// The sum of a line of comma-separated integers: "3, 4,-2" gives 5.
intent row_total(line: String) -> Int:
    constraints:
        - result = sum(int(f) for f in split(line, ","))

// Field i of a comma-separated line, without the spaces around it.
intent field(line: String, i: Natural) -> String:
    constraints:
        - result = trim(split(line, ",")[i])

// The words of s in the opposite order, one space between them.
intent backwards(s: String) -> String:
    constraints:
        - result = join(reverse(split(s)), " ")

// A line back from its fields.
intent csv_line(fields: List[String]) -> String:
    constraints:
        - result = join(fields, ",")

// The first letter upper-cased: slicing and indexing by code point.
intent capitalize(s: String) -> String:
    constraints:
        - result = if s = "" then "" else upper(s[0]) ++ s[1..len(s)]
        - len(result) = len(s)

// A number in words and back.
intent describe(x: Float) -> String:
    constraints:
        - result = "about " ++ str(int(x)) ++ " (exactly " ++ str(x) ++ ")"
