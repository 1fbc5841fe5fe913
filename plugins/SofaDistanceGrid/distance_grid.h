/* distance_grid.h - SOFA's DistanceGrid (SofaDistanceGrid plugin): a signed
 * distance field sampled on a regular grid of nx x ny x nz values between
 * pmin and pmax (negative inside the object), with trilinear interpolation
 * and its gradient. Built from a closed OBJ surface by SOFA's fast marching
 * (grid values next to the surface from the triangles crossing the grid
 * edges, then a Dijkstra-like front; the sign from the side of each front
 * cell's known neighbours), or analytically for SOFA's "#cube", or read
 * from a ".raw" file of doubles. Internal to the plugins that compile
 * distance_grid.c (SofaDistanceGrid and Collision). */
#ifndef SETTEE_DISTANCE_GRID_H
#define SETTEE_DISTANCE_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include <settee/settee.h>

typedef struct dgrid {
    int nx, ny, nz;            /* values along each axis */
    int nxny, n;               /* nx ny, nx ny nz */
    double *dists;             /* n values, x fastest; owned */
    double pmin[3], pmax[3];   /* the grid's corners */
    double cell[3], inv_cell[3]; /* cell widths and their inverses */
    double bbmin[3], bbmax[3]; /* the object's box (of its mesh points), inside the grid */
    double cube_dim;           /* half-width of a "#cube" grid, 0 otherwise */
    double *pts;               /* mesh points (the surface's vertices, or its samples), 3 x npts; owned */
    size_t npts;
} dgrid;

/* A grid of nx x ny x nz zero values between pmin and pmax (SOFA's
 * constructor: a negative size counts as 0). NULL when out of memory. */
dgrid *dgrid_create(int nx, int ny, int nz, const double pmin[3], const double pmax[3]);
void dgrid_free(dgrid *g);

/* SOFA's DistanceGrid::load: path is "#cube" (a cube of half-width scale),
 * a ".raw" file (n doubles, times scale) or an ".obj" surface (vertices
 * times |scale|). As SOFA's: with pmin[0] <= pmax[0] (so with the
 * default empty box, and with any ordered box) the grid spans the object's
 * box widened by 10 % of its size on each side; with pmin[0] > pmax[0] it
 * spans the given box grown to hold the object. sampling != 0 samples the surface for the mesh
 * points (sampleSurface). Errors name the file and line. */
st_status dgrid_load(const char *path, double scale, double sampling, int nx, int ny, int nz,
                     const double pmin[3], const double pmax[3], dgrid **out, st_error *err);

/* The distances of the closed surface given by vertices v (3 x nv) and
 * polygonal facets (facet f has vertices idx[start[f] .. start[f+1]),
 * each cut in a fan from its first vertex), times scale: SOFA's
 * calcDistance. ENOMEM only. */
st_status dgrid_calc_distance(dgrid *g, const double *v, const unsigned *idx,
                              const size_t *start, size_t nf, double scale, st_error *err);
/* The distances of a cube of half-width dim centred at the origin, and np
 * points per edge on its faces as mesh points: SOFA's calcCubeDistance. */
st_status dgrid_calc_cube(dgrid *g, double dim, int np, st_error *err);
/* SOFA's sampleSurface (sampling <= -1, an integer: every -sampling grid
 * cell; else a regular sampling of that step, negative: times the cell
 * width). */
st_status dgrid_sample_surface(dgrid *g, double sampling, st_error *err);
/* The object's box from the mesh points (the grid's when there are none). */
void dgrid_compute_bbox(dgrid *g);

/* The cell of p (clamped to the grid) and p's coordinates in it. */
int dgrid_index(const dgrid *g, const double p[3], double coefs[3]);
/* Trilinear interpolation of the distance at p, and its gradient (the
 * differences of the cell's values, interpolated: per cell, not per unit
 * length, as SOFA's). */
double dgrid_interp(const dgrid *g, const double p[3]);
void dgrid_grad(const dgrid *g, const double p[3], double out[3]);
/* The distance at any point: interpolated inside the grid, else at the
 * clamped point combined with the distance to it (an underestimate). */
double dgrid_eval(const dgrid *g, const double p[3]);
/* The same from the cell's first value minus a cell width (quick), and
 * squared (eval2, quickeval2). */
double dgrid_quickeval(const dgrid *g, const double p[3]);
double dgrid_eval2(const dgrid *g, const double p[3]);
double dgrid_quickeval2(const dgrid *g, const double p[3]);
/* p inside the object's box widened by margin; inside the grid by more
 * than a tenth of a cell. */
bool dgrid_in_bbox(const dgrid *g, const double p[3], double margin);
bool dgrid_in_grid(const dgrid *g, const double p[3]);

#endif
