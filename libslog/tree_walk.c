/* SPDX-License-Identifier: MIT
 *
 * tree_walk.c - children enumeration over a post-order node table: the
 * last child of node i is row i-1; each earlier child sits just before the
 * subtree of the one after it.  The reader validated subtree sizes at open.
 * Layer 4.
 */
#include "tree_walk.h"

int tree_walk_next_child(const store_node_row *nodes, uint64_t i, uint64_t *j)
{
    const uint64_t first = i + 1 - nodes[i].subtree_nodes;
    if (*j == i) {
        if (i == first) {
            return 0;
        }
        *j = i - 1;
        return 1;
    }
    const uint64_t sz = nodes[*j].subtree_nodes;
    if (*j < first + sz) {
        return 0;
    }
    *j -= sz;
    return 1;
}
