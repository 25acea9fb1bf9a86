// The Computer Language Benchmarks Game's mandelbrot: the points of an
// n x n grid over [-1.5, 0.5] x [-1, 1] that stay within radius 2 for 50
// iterations of z := z^2 + c, iterated as the benchmark does (z^2's two
// squares kept from the step before). The benchmark prints them as a
// bitmap; this prints how many there are.
//   flux run examples/benchmarks/mandelbrot.flux 'mandelbrot(200)'    15899

// does c = cr + ci·i stay bounded for the k iterations left?
intent stays(cr: Float, ci: Float, zr: Float, zi: Float, tr: Float, ti: Float, k: Natural) -> Bool:
    constraints:
        - stays(cr, ci, zr, zi, tr, ti, 0) = tr + ti <= 4.0
        - stays(cr, ci, zr, zi, tr, ti, k) = false when tr + ti > 4.0
        - stays(cr, ci, zr, zi, tr, ti, k) = step(cr, ci, 2.0 * zr * zi + ci, tr - ti + cr, k)

// the next iteration, from the new z
intent step(cr: Float, ci: Float, zi: Float, zr: Float, k: Natural) -> Bool:
    constraints:
        - result = stays(cr, ci, zr, zi, zr * zr, zi * zi, k - 1)

intent in_set(x: Natural, y: Natural, n: Natural) -> Bool:
    constraints:
        - result = stays(2.0 * x / n - 1.5, 2.0 * y / n - 1.0, 0.0, 0.0, 0.0, 0.0, 50)

intent mandelbrot(n: Natural) -> Natural:
    constraints:
        - result = count(x for y in 0..n for x in 0..n if in_set(x, y, n))
