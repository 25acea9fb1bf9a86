// The Computer Language Benchmarks Game's binary-trees: allocate perfect
// binary trees, count their nodes, throw them away. A stretch tree one
// deeper than the deepest, a long-lived tree of the deepest, and for each
// depth d = 4, 6, ..., 2^(max - d + 4) trees of depth d, with the sum of
// their node counts; printed line by line as the benchmark prints them.
//   flux run examples/benchmarks/binary_trees.flux 'binary_trees(10)'

// a node: no children, or two
type Tree = { children: List[Tree] }

intent tree(d: Natural) -> Tree:
    constraints:
        - tree(0) = {children: []}
        - tree(d) = {children: [tree(d - 1), tree(d - 1)]}

intent nodes(t: Tree) -> Natural:
    constraints:
        - result = 1 + sum(nodes(c) for c in t.children)

// each tree is built, counted and dropped before the next one
intent line(d: Natural, deepest: Natural) -> String:
    constraints:
        - result = (str(2 ^ (deepest - d + 4)) ++ "\t trees of depth " ++ str(d) ++ "\t check: " ++
                    str(sum(nodes(tree(d)) for k in 0..2 ^ (deepest - d + 4))))

intent report(deepest: Natural, long_lived: Tree) -> String:
    constraints:
        - result = ("stretch tree of depth " ++ str(deepest + 1) ++ "\t check: " ++ str(nodes(tree(deepest + 1))) ++ "\n" ++
                    join([line(d, deepest) for d in 4..=deepest if d mod 2 = 0], "\n") ++ "\n" ++
                    "long lived tree of depth " ++ str(deepest) ++ "\t check: " ++ str(nodes(long_lived)))

intent binary_trees(n: Natural) -> String:
    constraints:
        - result = report(max(6, n), tree(max(6, n)))
