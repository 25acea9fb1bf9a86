/* binary-trees as the Benchmarks Game's C programs allocate them (one
 * malloc a node, as examples/benchmarks/binary_trees.flux builds a record
 * a node), single-threaded. */
#include <stdio.h>
#include <stdlib.h>

typedef struct Node { struct Node *left, *right; } Node;

static Node *tree(int d)
{
    Node *t = malloc(sizeof *t);
    t->left = d > 0 ? tree(d - 1) : NULL;
    t->right = d > 0 ? tree(d - 1) : NULL;
    return t;
}

static long nodes(const Node *t)
{
    return 1 + (t->left ? nodes(t->left) + nodes(t->right) : 0);
}

static void drop(Node *t)
{
    if (t->left) {
        drop(t->left);
        drop(t->right);
    }
    free(t);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10, deepest = n > 6 ? n : 6;
    Node *stretch = tree(deepest + 1);
    printf("stretch tree of depth %d\t check: %ld\n", deepest + 1, nodes(stretch));
    drop(stretch);
    Node *long_lived = tree(deepest);
    for (int d = 4; d <= deepest; d += 2) {
        long iterations = 1L << (deepest - d + 4), check = 0;
        for (long i = 0; i < iterations; i++) {
            Node *t = tree(d);
            check += nodes(t);
            drop(t);
        }
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, check);
    }
    printf("long lived tree of depth %d\t check: %ld\n", deepest, nodes(long_lived));
    drop(long_lived);
    return 0;
}
