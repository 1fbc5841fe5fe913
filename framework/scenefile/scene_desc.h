/* scene_desc.h - the description of a scene, between its file and its graph.
 *
 * Every scene front-end (settee's YAML, SOFA's XML) turns its file into the
 * same description: nodes with their context attributes, and in document
 * order the node's objects (type and attributes) and child nodes. Every
 * attribute keeps its text and its FILE:LINE:COL. One builder makes the
 * graph from it, so both formats share every rule, error and link
 * resolution, as SOFA's BaseObjectDescription + ObjectFactory do; the
 * writers of `settee convert` print it back in either format. Kernel
 * internal. */
#ifndef SETTEE_SCENE_DESC_H
#define SETTEE_SCENE_DESC_H

#include <stdio.h>

#include "simulation/simulation.h"

typedef struct st_dattr {
    const char *key;   /* owned by the description */
    st_mark kmark;     /* where the key is written */
    st_value val;      /* texts owned by the description */
} st_dattr;

typedef struct st_dnode st_dnode;

typedef struct st_dobj {
    const char *type;  /* class name as written */
    st_mark mark;      /* where the type is written */
    st_dattr *attrs;   /* in document order (name included) */
    size_t nattrs, capattrs;
} st_dobj;

typedef struct st_ditem {
    st_dobj *obj;      /* exactly one of obj, node */
    st_dnode *node;
} st_ditem;

struct st_dnode {
    const char *name;  /* NULL: reader reported it missing or invalid */
    st_mark mark, name_mark;
    st_dattr *attrs;   /* context attributes (gravity, dt, ...), not name */
    size_t nattrs, capattrs;
    st_ditem *items;   /* objects and children in document order */
    size_t nitems, capitems;
    const char *comment; /* a note for writers (SOFA attributes settee ignores), or NULL */
};

typedef struct st_desc {
    st_dnode *root;
    char **strings;    /* every owned string */
    size_t nstrings, capstrings;
    void **blocks;     /* every other owned allocation */
    size_t nblocks, capblocks;
} st_desc;

/* Owned copies; NULL when out of memory. */
const char *st__desc_str(st_desc *d, const char *s);
const char *st__desc_strn(st_desc *d, const char *s, size_t n);
/* A node; parent NULL: the root when there is none yet, else a detached node. */
st_dnode *st__desc_node(st_desc *d, st_dnode *parent, const char *name, st_mark mark);
/* Appends an object or node to a node's items. */
bool st__desc_add_item(st_desc *d, st_dnode *parent, st_ditem it);
st_dobj *st__desc_obj(st_desc *d, st_dnode *parent, const char *type, st_mark mark);
/* Appends an attribute, copying the value deeply (texts into the pool). */
st_dattr *st__desc_attr(st_desc *d, st_dattr **attrs, size_t *n, size_t *cap, const char *key,
                        st_mark kmark, const st_value *val);
/* A scalar attribute from text. */
st_dattr *st__desc_attr_text(st_desc *d, st_dattr **attrs, size_t *n, size_t *cap,
                             const char *key, st_mark kmark, const char *text, st_mark vmark);
const st_dattr *st__desc_get(const st_dattr *attrs, size_t n, const char *key);
void st__desc_free(st_desc *d);

/* ---- reporting, shared by the readers and the builder ---- */
#define ST_LOAD_MAX_ERRORS 100

typedef struct st_report {
    st_runtime *rt;
    st_error *first;   /* the caller's error: the first one found */
    int nerrors;
} st_report;

bool st__report_stopped(const st_report *r);
/* Sends an error to the log sink (unless already sent) and keeps the first. */
void st__report(st_report *r, st_error *e);
void st__report_at(st_report *r, st_status code, st_mark m, const char *path, const char *fmt,
                   ...) ST_PRINTF(5, 6);
/* An error from the kernel: the path is added when it has none. */
void st__report_kernel(st_report *r, st_error *e, const char *path);
/* "; did you mean 'a' or 'b'?" into buf ("" when nothing is close). */
const char *st__did_you_mean(const char **sugg, size_t n, char *buf, size_t size);

/* ---- building ---- */
/* Makes the graph of scene s from d (RequiredPlugin entries load their
 * plugins as they are met, as SOFA's parser does). Errors go to r. */
void st__desc_build(st_desc *d, st_scene *s, st_report *r);

/* ---- readers (one per format) ---- */
typedef enum st_scene_format { ST_FMT_YAML = 0, ST_FMT_XML } st_scene_format;
/* The format a file name implies: .scn and .xml are SOFA's XML. */
st_scene_format st__scene_format_of(const char *path);

/* Each fills d (d->root set when a root node was read) and reports errors
 * to r. file is the name used in marks (interned by the scene). */
void st__yaml_read(st_scene *s, const char *file, const char *text, size_t len, st_desc *d,
                   st_report *r);
void st__xml_read(st_scene *s, const char *file, const char *text, size_t len, st_desc *d,
                  st_report *r);
/* Reads text in the format its name implies (st__scene_format_of) into d,
 * creating the scene that interns file names. Returns the first error
 * (r->first); the scene and d are the caller's to free either way. */
st_status st__scene_describe(st_runtime *rt, const char *text, size_t len, const char *name,
                             st_scene **scene, st_desc *d, st_report *r);
/* Reads a whole regular file into a NUL-terminated buffer (st_free it). */
/* st__read_file: core/core.h. */

/* ---- data files (datapath.c) ---- */
/* Looks name up as SOFA's data repository does: absolute as is; else dir1,
 * dir2 (each may be NULL), SETTEE_DATA_PATH, SOFA_DATA_PATH. tried_out gets
 * the list of paths tried; not_regular is set when name exists but is not
 * a regular file (then out holds it). */
bool st__data_find(const char *dir1, const char *dir2, const char *name, char *out, size_t size,
                   char *tried_out, size_t tried_size, bool *not_regular);
/* The same, then in the scene's own data folders (AddDataRepository). */
bool st__data_find_in(const st_scene *s, const char *dir1, const char *dir2, const char *name,
                      char *out, size_t size, char *tried_out, size_t tried_size,
                      bool *not_regular);
/* The folder of a file name ("" for a bare name) into buf. */
const char *st__dir_of(const char *file, char *buf, size_t size);

/* ---- writers (settee convert) ---- */
/* Writes d in the format to f. */
/* reg (may be NULL) gives the fields' types: values are written by type.
 * YAML: the root's objects begin with a RequiredPlugin of the nplugins
 * plugins (names of at most 127 characters), when there are any. */
st_status st__desc_write(const st_desc *d, st_scene_format fmt, FILE *f,
                         const st_registry *reg, const char (*plugins)[128], size_t nplugins,
                         st_error *err);

#endif
