/* quat_to_rigid_engine.c - QuatToRigidEngine: Rigid3d frames from positions
 * and quaternions. Frame i is (positions[i], orientations[i]); a single
 * orientation serves every position. With a colinear position c_i the
 * centre is projected on the line through c_i along the frame's z axis
 * d = q (0,0,1) q*: p' = c_i + d (d . (p - c_i)) / |d| (SOFA divides by |d|,
 * not |d|^2: the same for a unit quaternion). The quaternion is copied as
 * given (not normalized).
 *
 * SOFA instantiates it as QuatToRigidEngine<Vec3d> although its output is a
 * vector of Rigid3d coordinates and one input a vector of quaternions: the
 * fields are typed rigid3[] and quat[] (field.h, ST_RIGID3S, ST_QUATS), so
 * the scene's template stays "Vec3d" and "@engine.rigids" links into a
 * Rigid3d MechanicalObject's position frame for frame. */
#include <math.h>

#include <settee/settee.h>

typedef struct quat_to_rigid {
    st_component base;
    st_array positions;   /* vec3 */
    st_array orientations; /* quat, x y z w */
    st_array colinear;    /* vec3 */
    st_array rigids;      /* rigid3: output */
} quat_to_rigid;

static const st_field q2r_fields[] = {
    ST_FIELD_EX(quat_to_rigid, positions, "positions", ST_T_VEC3S, st_array, NULL,
                "Positions (Vector of 3)", 0, "position", 0.0, 0.0),
    ST_FIELD_EX(quat_to_rigid, orientations, "orientations", ST_T_QUATS, st_array, NULL,
                "Orientations (Quaternion)", 0, "orientation", 0.0, 0.0),
    ST_FIELD_EX(quat_to_rigid, colinear, "colinearPositions", ST_T_VEC3S, st_array, NULL,
                "Optional positions to restrict output to be colinear in the quaternion Z "
                "direction",
                0, "colinearPosition", 0.0, 0.0),
    ST_FIELD_EX(quat_to_rigid, rigids, "rigids", ST_T_RIGID3S, st_array, NULL,
                "Rigid (Position + Orientation)", ST_F_OUTPUT, "rigid", 0.0, 0.0),
    ST_FIELD_END};

static st_status q2r_update(st_component *self, st_error *err)
{
    quat_to_rigid *e = (quat_to_rigid *)self;
    size_t np = e->positions.n, nq = e->orientations.n, n = np;
    if (nq == 0) {
        st_component_warn(self, "No orientations");
        n = 0;
    } else if (nq > 1 && np != nq) {
        st_component_warn(self, "Size of positions and orientations are not equal");
        n = np < nq ? np : nq;
    }
    ST_TRY(st_array_resize(&e->rigids, ST_T_RIGID3S, n, err));
    for (size_t i = 0; i < n; i++) {
        const double *q = e->orientations.r + 4 * (i % nq);
        double *r = e->rigids.r + 7 * i;
        double p[3] = {e->positions.r[3 * i], e->positions.r[3 * i + 1],
                       e->positions.r[3 * i + 2]};
        if (i < e->colinear.n) {
            const double *c = e->colinear.r + 3 * i, z[3] = {0, 0, 1};
            double d[3];
            st_quat_rotate(d, q, z);
            double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            double s = (d[0] * (p[0] - c[0]) + d[1] * (p[1] - c[1]) + d[2] * (p[2] - c[2])) /
                       sqrt(dd);
            for (int k = 0; k < 3; k++)
                p[k] = c[k] + d[k] * s;
        }
        for (int k = 0; k < 3; k++)
            r[k] = p[k];
        for (int k = 0; k < 4; k++)
            r[3 + k] = q[k];
    }
    st_component_touch(self, st_component_field(self, "rigids"));
    return ST_OK;
}

static const st_engine_ops q2r_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = q2r_update,
};

const st_class quat_to_rigid_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "QuatToRigidEngine",
    .category = "Engine",
    .description = "Transform a couple of Vec3 and Quaternion in Rigid",
    .instance_size = sizeof(quat_to_rigid),
    .fields = q2r_fields,
    .engine = &q2r_engine,
};
