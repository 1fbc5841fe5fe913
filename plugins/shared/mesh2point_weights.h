/* mesh2point_weights.h - the weights SOFA's Mesh2PointTopologicalMapping and
 * Mesh2PointMechanicalMapping give the corners of an element for the
 * coordinates f of a point made from it, by corner (the element's own
 * order): edges 1-fx, fx; triangles 1-fx-fy, fx, fy; quads (1-fx)(1-fy),
 * fx (1-fy), (1-fx) fy, fx fy (SOFA's q2 and q3 weights, not the bilinear
 * ones of a counter-clockwise quad); tetrahedra 1-fx-fy-fz, fx, fy, fz;
 * hexahedra trilinear with h0 h1 h2 h3 = (0,0) (1,0) (1,1) (0,1) at
 * fz = 0, h4..h7 the same at fz = 1. The callers sum in SOFA's orders,
 * which differ between the two classes for hexahedra. */
#ifndef SETTEE_SHARED_MESH2POINT_WEIGHTS_H
#define SETTEE_SHARED_MESH2POINT_WEIGHTS_H

/* w[c] for each corner c of an element of kind 1..5 (edge, triangle,
 * quad, tetrahedron, hexahedron); returns the number of corners. */
static inline unsigned mesh2point_weights(int kind, const double *f, double *w)
{
    const double x = f[0], y = f[1], z = f[2];
    switch (kind) {
    case 1:
        w[0] = 1 - x, w[1] = x;
        return 2;
    case 2:
        w[0] = 1 - x - y, w[1] = x, w[2] = y;
        return 3;
    case 3:
        w[0] = (1 - x) * (1 - y), w[1] = x * (1 - y), w[2] = (1 - x) * y, w[3] = x * y;
        return 4;
    case 4:
        w[0] = 1 - x - y - z, w[1] = x, w[2] = y, w[3] = z;
        return 4;
    default:
        w[0] = (1 - x) * (1 - y) * (1 - z), w[1] = x * (1 - y) * (1 - z);
        w[2] = x * y * (1 - z), w[3] = (1 - x) * y * (1 - z);
        w[4] = (1 - x) * (1 - y) * z, w[5] = x * (1 - y) * z;
        w[6] = x * y * z, w[7] = (1 - x) * y * z;
        return 8;
    }
}

#endif
