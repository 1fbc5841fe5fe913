/* variables.c - SOFA's shader uniforms (Ogl*Variable) and vertex attributes
 * (Ogl*Attribute): one `value` each, whose type is the class's. Headless the
 * value is kept and checked (integers for the Int classes, whole groups for
 * vectors and matrices); no shader runs. One instance struct serves the
 * family; each class's field table names the member of its type. */
#include "shader.h"

typedef struct ogl_value {
    st_component base;
    bool enable;
    char *id;
    unsigned index_shader;
    int i;             /* OglIntVariable */
    double r;          /* OglFloatVariable */
    st_vec2 v2;        /* Ogl{Int,Float}2Variable */
    st_vec3 v3;        /* Ogl{Int,Float}3Variable */
    st_vec4 v4;        /* Ogl{Int,Float}4Variable */
    st_array a;        /* vectors, matrices and attributes: flat list of scalars */
    bool transpose;    /* matrices */
    bool handle_dynamic_topology; /* attributes */
} ogl_value;

#define S ogl_value
#define VALUE(T, CT, m, def, help)                                                                \
    ST_FIELD_EX(S, m, "value", T, CT, def, help, ST_F_IGNORED, "values", 0.0, 0.0)
#define TRANSPOSE                                                                                 \
    IGN_BOOL(S, transpose, "transpose", "false",                                                  \
             "Transpose the matrix (for row-major matrices in OpenGL)"),
#define DYNAMIC                                                                                   \
    IGN_BOOL(S, handle_dynamic_topology, "handleDynamicTopology", "true",                         \
             "Resize the values when the topology changes"),

/* One class: NAME, its value row, what init checks (group, kind) and any
 * extra rows (TRANSPOSE, DYNAMIC or nothing). */
#define OGL_VALUE_CLASS(var, NAME, DESC, VALUE_ROW, GROUP, KIND, EXTRA)                            \
    static const st_field var##_fields[] = {IGN_ENABLE(S), SHADER_ELEMENT_FIELDS(S), VALUE_ROW,    \
                                            EXTRA ST_FIELD_END};                                  \
    static const st_value_check var##_checks[] = {{"value", (GROUP), 0, (KIND)},                  \
                                                  {NULL, 0, 0, 0}};                               \
    static ST_HEADLESS_CLASS(var, NAME, "Shader", DESC, S, var##_fields, NULL, var##_checks, NULL);

#define INT1 VALUE(ST_T_INT, int, i, "0", "Value of the uniform")
#define REAL1 VALUE(ST_T_REAL, double, r, "0", "Value of the uniform")
#define VEC(n) VALUE(ST_T_VEC##n, st_vec##n, v##n, NULL, "Value of the uniform (" #n " numbers)")
#define LIST(help) VALUE(ST_T_REALS, st_array, a, NULL, help)
#define NOEXTRA

/* Uniforms. */
OGL_VALUE_CLASS(int_var, "OglIntVariable", "Shader uniform: int", INT1, 1, ST_CHECK_INT, NOEXTRA)
OGL_VALUE_CLASS(int2_var, "OglInt2Variable", "Shader uniform: ivec2", VEC(2), 1, ST_CHECK_INT,
                NOEXTRA)
OGL_VALUE_CLASS(int3_var, "OglInt3Variable", "Shader uniform: ivec3", VEC(3), 1, ST_CHECK_INT,
                NOEXTRA)
OGL_VALUE_CLASS(int4_var, "OglInt4Variable", "Shader uniform: ivec4", VEC(4), 1, ST_CHECK_INT,
                NOEXTRA)
OGL_VALUE_CLASS(float_var, "OglFloatVariable", "Shader uniform: float", REAL1, 1, ST_CHECK_REAL,
                NOEXTRA)
OGL_VALUE_CLASS(float2_var, "OglFloat2Variable", "Shader uniform: vec2", VEC(2), 1,
                ST_CHECK_REAL, NOEXTRA)
OGL_VALUE_CLASS(float3_var, "OglFloat3Variable", "Shader uniform: vec3", VEC(3), 1,
                ST_CHECK_REAL, NOEXTRA)
OGL_VALUE_CLASS(float4_var, "OglFloat4Variable", "Shader uniform: vec4", VEC(4), 1,
                ST_CHECK_REAL, NOEXTRA)
OGL_VALUE_CLASS(int_vec_var, "OglIntVectorVariable", "Shader uniform: int array",
                LIST("Values of the uniform array"), 1, ST_CHECK_INT, NOEXTRA)
OGL_VALUE_CLASS(int_vec2_var, "OglIntVector2Variable", "Shader uniform: ivec2 array",
                LIST("Values of the uniform array, 2 integers each"), 2, ST_CHECK_INT, NOEXTRA)
OGL_VALUE_CLASS(int_vec3_var, "OglIntVector3Variable", "Shader uniform: ivec3 array",
                LIST("Values of the uniform array, 3 integers each"), 3, ST_CHECK_INT, NOEXTRA)
OGL_VALUE_CLASS(int_vec4_var, "OglIntVector4Variable", "Shader uniform: ivec4 array",
                LIST("Values of the uniform array, 4 integers each"), 4, ST_CHECK_INT, NOEXTRA)
OGL_VALUE_CLASS(float_vec_var, "OglFloatVectorVariable", "Shader uniform: float array",
                LIST("Values of the uniform array"), 1, ST_CHECK_REAL, NOEXTRA)
OGL_VALUE_CLASS(float_vec2_var, "OglFloatVector2Variable", "Shader uniform: vec2 array",
                LIST("Values of the uniform array, 2 reals each"), 2, ST_CHECK_REAL, NOEXTRA)
OGL_VALUE_CLASS(float_vec3_var, "OglFloatVector3Variable", "Shader uniform: vec3 array",
                LIST("Values of the uniform array, 3 reals each"), 3, ST_CHECK_REAL, NOEXTRA)
OGL_VALUE_CLASS(float_vec4_var, "OglFloatVector4Variable", "Shader uniform: vec4 array",
                LIST("Values of the uniform array, 4 reals each"), 4, ST_CHECK_REAL, NOEXTRA)
#define MATRIX(var, NAME, GL, k)                                                                  \
    OGL_VALUE_CLASS(var, NAME, "Shader uniform: " GL " array",                                    \
                    LIST("Matrices of the uniform array, " #k " reals each (column-major unless " \
                         "transpose)"),                                                           \
                    k, ST_CHECK_REAL, TRANSPOSE)
MATRIX(mat2_var, "OglMatrix2Variable", "mat2", 4)
MATRIX(mat3_var, "OglMatrix3Variable", "mat3", 9)
MATRIX(mat4_var, "OglMatrix4Variable", "mat4", 16)
MATRIX(mat2x3_var, "OglMatrix2x3Variable", "mat2x3", 6)
MATRIX(mat3x2_var, "OglMatrix3x2Variable", "mat3x2", 6)
MATRIX(mat2x4_var, "OglMatrix2x4Variable", "mat2x4", 8)
MATRIX(mat4x2_var, "OglMatrix4x2Variable", "mat4x2", 8)
MATRIX(mat3x4_var, "OglMatrix3x4Variable", "mat3x4", 12)
MATRIX(mat4x3_var, "OglMatrix4x3Variable", "mat4x3", 12)
MATRIX(mat4_vec_var, "OglMatrix4VectorVariable", "mat4", 16)

/* Vertex attributes: one tuple per vertex. */
#define ATTRIBUTE(var, NAME, GL, k, KIND)                                                          \
    OGL_VALUE_CLASS(var, NAME, "Shader vertex attribute: " GL " per vertex",                      \
                    LIST("Values per vertex, " #k " each"), k, KIND, DYNAMIC)
ATTRIBUTE(float_attr, "OglFloatAttribute", "float", 1, ST_CHECK_REAL)
ATTRIBUTE(float2_attr, "OglFloat2Attribute", "vec2", 2, ST_CHECK_REAL)
ATTRIBUTE(float3_attr, "OglFloat3Attribute", "vec3", 3, ST_CHECK_REAL)
ATTRIBUTE(float4_attr, "OglFloat4Attribute", "vec4", 4, ST_CHECK_REAL)
ATTRIBUTE(int_attr, "OglIntAttribute", "int", 1, ST_CHECK_INT)
ATTRIBUTE(int2_attr, "OglInt2Attribute", "ivec2", 2, ST_CHECK_INT)
ATTRIBUTE(int3_attr, "OglInt3Attribute", "ivec3", 3, ST_CHECK_INT)
ATTRIBUTE(int4_attr, "OglInt4Attribute", "ivec4", 4, ST_CHECK_INT)
ATTRIBUTE(uint_attr, "OglUIntAttribute", "uint", 1, ST_CHECK_UINT)
ATTRIBUTE(uint2_attr, "OglUInt2Attribute", "uvec2", 2, ST_CHECK_UINT)
ATTRIBUTE(uint3_attr, "OglUInt3Attribute", "uvec3", 3, ST_CHECK_UINT)
ATTRIBUTE(uint4_attr, "OglUInt4Attribute", "uvec4", 4, ST_CHECK_UINT)

const st_headless_class *const shader_variable_classes[] = {
    &int_var,        &int2_var,       &int3_var,       &int4_var,      &float_var,
    &float2_var,     &float3_var,     &float4_var,     &int_vec_var,   &int_vec2_var,
    &int_vec3_var,   &int_vec4_var,   &float_vec_var,  &float_vec2_var, &float_vec3_var,
    &float_vec4_var, &mat2_var,       &mat3_var,       &mat4_var,      &mat2x3_var,
    &mat3x2_var,     &mat2x4_var,     &mat4x2_var,     &mat3x4_var,    &mat4x3_var,
    &mat4_vec_var,   &float_attr,     &float2_attr,    &float3_attr,   &float4_attr,
    &int_attr,       &int2_attr,      &int3_attr,      &int4_attr,     &uint_attr,
    &uint2_attr,     &uint3_attr,     &uint4_attr};
const size_t shader_variable_count =
    sizeof shader_variable_classes / sizeof shader_variable_classes[0];
