/* sofa_fem_values.h - the values SOFA's own unit tests check for its
 * elastic FEM force fields, written once for the tests of every class that
 * SOFA tests with them (BaseTetrahedronFEMForceField_test: the tetrahedron
 * "2 3 1 0" with E 1000, nu 0.3, method large, and the 4x10x4 grid beam
 * after 100 steps; TriangleFEMForceField_test: two triangles with E 100,
 * nu 0.3, and the 40x40 membrane after 100 steps). Rotations are local to
 * world (row-major), rest shapes in the element frame. */
#ifndef SETTEE_TESTS_SOFA_FEM_VALUES_H
#define SETTEE_TESTS_SOFA_FEM_VALUES_H

/* ---- One tetrahedron ---- */
static const double sofa_tet1_R[9] = {0, 0.816497, 0.57735, -0.707107, -0.408248, 0.57735,
                                      0.707107, -0.408248, 0.57735};
static const double sofa_tet1_P[4][3] = {{0, 0, 0}, {1.41421, 0, 0}, {0.707107, 1.22474, 0},
                                         {0.707107, 0.408248, -0.57735}};
static const double sofa_tet1_K[3] = {224.359, 96.1538, 64.1026}; /* K(0,0), K(0,1), K(3,3) */
static const double sofa_tet1_J[12][6] = {{0.707107, 0, 0, 0.408248, 0, -0.57735},
                                          {0, 0.408248, 0, 0.707107, -0.57735, 0},
                                          {0, 0, -0.57735, 0, 0.408248, 0.707107},
                                          {-0.707107, 0, 0, 0.408248, 0, -0.57735},
                                          {0, 0.408248, 0, -0.707107, -0.57735, 0},
                                          {0, 0, -0.57735, 0, 0.408248, -0.707107},
                                          {0, 0, 0, -0.816497, 0, -0.57735},
                                          {0, -0.816497, 0, 0, -0.57735, 0},
                                          {0, 0, -0.57735, 0, -0.816497, 0},
                                          {0, 0, 0, 0, 0, 1.73205},
                                          {0, 0, 0, 0, 1.73205, 0},
                                          {0, 0, 1.73205, 0, 0, 0}};

/* ---- The grid beam: vertex 159 after 100 steps, element 100 ---- */
static const double sofa_beam_tip[3] = {9.99985, 45.0487, 30.0011};
static const double sofa_beam_R0[9] = {-1, 0, 0, 0, -0.8, -0.6, 0, -0.6, 0.8};
static const double sofa_beam_R[9] = {-1, 8.01488e-06, 0.000541687, -0.000320764, -0.814541,
                                      -0.580106, 0.000436576, -0.580106, 0.814541};
static const double sofa_beam_P[4][3] = {{0, 0, 0}, {3.33333, 0, 0}, {3.33333, 5.55556, 0},
                                         {0, 3.55556, 2.66667}};
static const double sofa_beam_K[3] = {2.72596, 1.16827, 0.778846};
static const double sofa_beam_J[12][6] = {
    {-14.8148, 0, 0, 0, 0, -18.5185},     {0, 0, 0, -14.8148, -18.5185, 0},
    {0, 0, -18.5185, 0, 0, -14.8148},     {14.8148, 0, 0, -8.88889, 0, 11.8519},
    {0, -8.88889, 0, 14.8148, 11.8519, 0}, {0, 0, 11.8519, 0, -8.88889, 14.8148},
    {0, 0, 0, 8.88889, 0, -11.8519},      {0, 8.88889, 0, 0, -11.8519, 0},
    {0, 0, -11.8519, 0, 8.88889, 0},      {0, 0, 0, 0, 0, 18.5185},
    {0, 0, 0, 0, 18.5185, 0},             {0, 0, 18.5185, 0, 0, 0}};

/* ---- Two triangles "0 1 2  1 3 2" ---- */
static const double sofa_tri_P[2][3][3] = {
    {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, 0}, {1.4142135, 0, 0}, {0.707107, 1.2247449, 0}}};
static const double sofa_tri_R[2][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1},
                                        {0, -0.81649661, -0.57735, 0.707107, 0.40824831,
                                         -0.57735, 0.707107, -0.40824831, 0.57735}};
static const double sofa_tri_K[2][9] = {
    {54.945053, 16.483517, 0, 16.483517, 54.945053, 0, 0, 0, 19.23077},
    {95.1676, 28.550287, 0, 28.550287, 95.1676, 0, 0, 0, 33.30867}};
static const double sofa_tri_J[2][6][3] = {
    {{-1, 0, -1}, {0, -1, -1}, {1, 0, 0}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}},
    {{-0.707107, 0, -0.408248},
     {0, -0.408248, -0.707107},
     {0.707107, 0, -0.408248},
     {0, -0.408248, 0.707107},
     {0, 0, 0.816497},
     {0, 0.816497, 0}}};

/* ---- The membrane: triangle 42 after 100 steps ---- */
static const double sofa_membrane_P[3][3] = {{0, 0, 0}, {0.25641, 0, 0}, {0.25641, 0.25641, 0}};
static const double sofa_membrane_R[9] = {0.99992, -0.0126608, 0, 0.0126608, 0.99992, 0,
                                          0, 0, 1};
static const double sofa_membrane_K[9] = {3.61243, 1.08373, 0, 1.08373, 3.61243, 0,
                                          0, 0, 1.26435};
static const double sofa_membrane_J[6][3] = {{-3.89456, 0, -0.00185328}, {0, -0.00185328, -3.89456},
                                             {3.89456, 0, -3.89816},     {0, -3.89816, 3.89456},
                                             {0, 0, 3.90001},            {0, 3.90001, 0}};

#endif
