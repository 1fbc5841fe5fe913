/* rigid_to_quat_engine.c - RigidToQuatEngine: Rigid3d frames split into
 * their centres, their quaternions (as given) and the quaternions' Euler
 * angles in radians (SOFA's Quat::toEulerVector, of the normalized
 * quaternion: roll = atan2(2(w x + y z), 1 - 2(x^2 + y^2)), pitch =
 * asin(clamp(2(w y - z x), -1, 1)), yaw = atan2(2(w z + x y), 1 - 2(y^2 + z^2))).
 *
 * Like QuatToRigidEngine, SOFA instantiates it as RigidToQuatEngine<Vec3d>:
 * its frames and quaternions are typed rigid3[] and quat[] (field.h). */
#include <math.h>

#include <settee/settee.h>

typedef struct rigid_to_quat {
    st_component base;
    st_array positions;    /* vec3: output */
    st_array orientations; /* quat: output */
    st_array euler;        /* vec3: output */
    st_array rigids;       /* rigid3 */
} rigid_to_quat;

static const st_field r2q_fields[] = {
    ST_FIELD_EX(rigid_to_quat, positions, "positions", ST_T_VEC3S, st_array, NULL,
                "Positions (Vector of 3)", ST_F_OUTPUT, "position", 0.0, 0.0),
    ST_FIELD_EX(rigid_to_quat, orientations, "orientations", ST_T_QUATS, st_array, NULL,
                "Orientations (Quaternion)", ST_F_OUTPUT, "orientation", 0.0, 0.0),
    ST_OUTPUT(rigid_to_quat, euler, "orientationsEuler", ST_T_VEC3S, st_array,
              "Orientations (Euler angle)"),
    ST_FIELD_EX(rigid_to_quat, rigids, "rigids", ST_T_RIGID3S, st_array, NULL,
                "Rigid (Position + Orientation)", 0, "rigid", 0.0, 0.0),
    ST_FIELD_END};

/* SOFA's Quat::normalize: left alone within 1e-10 of unit squared norm, the
 * identity when zero. */
static void quat_normalized(double o[4], const double q[4])
{
    double m = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    for (int k = 0; k < 4; k++)
        o[k] = q[k];
    if (fabs(m - 1.0) <= 1e-10)
        return;
    if (m != 0) {
        double s = 1.0 / sqrt(m);
        for (int k = 0; k < 4; k++)
            o[k] *= s;
    } else {
        o[3] = 1;
    }
}

static st_status r2q_update(st_component *self, st_error *err)
{
    rigid_to_quat *e = (rigid_to_quat *)self;
    size_t n = e->rigids.n;
    ST_TRY(st_array_resize(&e->positions, ST_T_VEC3S, n, err));
    ST_TRY(st_array_resize(&e->orientations, ST_T_QUATS, n, err));
    ST_TRY(st_array_resize(&e->euler, ST_T_VEC3S, n, err));
    for (size_t i = 0; i < n; i++) {
        const double *r = e->rigids.r + 7 * i;
        double q[4], *eu = e->euler.r + 3 * i;
        for (int k = 0; k < 3; k++)
            e->positions.r[3 * i + k] = r[k];
        for (int k = 0; k < 4; k++)
            e->orientations.r[4 * i + k] = r[3 + k];
        quat_normalized(q, r + 3);
        double y = 2.0 * (q[3] * q[1] - q[2] * q[0]);
        y = y > 1.0 ? 1.0 : y < -1.0 ? -1.0 : y;
        eu[0] = atan2(2 * (q[3] * q[0] + q[1] * q[2]), 1 - 2 * (q[0] * q[0] + q[1] * q[1]));
        eu[1] = asin(y);
        eu[2] = atan2(2 * (q[3] * q[2] + q[0] * q[1]), 1 - 2 * (q[1] * q[1] + q[2] * q[2]));
    }
    st_component_touch(self, st_component_field(self, "positions"));
    st_component_touch(self, st_component_field(self, "orientations"));
    st_component_touch(self, st_component_field(self, "orientationsEuler"));
    return ST_OK;
}

static const st_engine_ops r2q_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = r2q_update,
};

const st_class rigid_to_quat_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "RigidToQuatEngine",
    .category = "Engine",
    .description = "Transform a vector of Rigids into two independent vectors for positions (Vec3) "
                   "and orientations (Quat)",
    .instance_size = sizeof(rigid_to_quat),
    .fields = r2q_fields,
    .engine = &r2q_engine,
};
