/* The sink protocol: how the matcher hands each hit it counts to a table it does not own
 * (ripgrep's matcher and sink). A table's type holds, as its class attribute __doi_sink__, a
 * capsule named DOI_SINK_CAPSULE whose pointer is a DoiSinkApi; the matcher calls its `add` for
 * every hit, with no Python object made. Any other table is called through its Python method
 * add(doi, offset, form, raw, line). The mention table (pipeline/_ctable.c) is one such sink.
 * A C sink's functions run without the GIL (the matcher lets it go over a batch of texts): they
 * touch no Python object but the table, and report an error as mem.h's raise_anyhow does. */
#ifndef DOI_SINK_H
#define DOI_SINK_H
#include <Python.h>
#include <stdint.h>

#define DOI_SINK_CAPSULE "extractor.doi_sink"
#define DOI_SINK_ATTR "__doi_sink__"

typedef struct {
    /* Count one hit of the DOI whose canonical form is the UTF-8 `key`, at `offset`, on 1-based
     * `line` (-1: none), form index `form` (< 31); `raw` is its text as found (UTF-8, an invalid
     * byte read as U+FFFD). Returns 0, or -1 with an exception set. */
    int (*add)(PyObject *table, const char *key, Py_ssize_t klen, int64_t offset, int64_t line, int form,
               const unsigned char *raw, Py_ssize_t rawlen);
    /* Count the hits from now on as document `doc`'s (a batch of records in one table: rows keyed by
     * document and DOI). Returns 0, or -1 with an exception set. */
    int (*set_doc)(PyObject *table, int64_t doc);
    /* The rows the table holds. */
    Py_ssize_t (*rows)(PyObject *table);
} DoiSinkApi;

#endif
