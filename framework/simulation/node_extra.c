/* node_extra.c - node queries added after the first node API: the scene
 * file a node was loaded from (for loaders' relative file names). */
#include "simulation/simulation.h"

const char *st_node_scene_file(const st_node *n)
{
    if (!n)
        return NULL;
    const st_node *root = st_node_root(n);
    return root && root->scene ? st_scene_file(root->scene) : NULL;
}
