/* The pipeline's C part: the mention table that counts a document's hits (a sink of the matcher,
 * match/cscan/sink.h) and the merge's bucket hashes and grouping, on C arrays and Arrow buffers
 * with no Python object per row. Optional, as the matcher is: without it pipeline/table.py runs
 * the same in Python. Built as one unit from ctable/. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../match/cscan/sink.h"
#include "../match/cscan/utf8.h"
#include "../match/cscan/mem.h"

/* A form index is a bit of an int32 mask. */
#define MAX_FORMS 31

#include "ctable/table.c"
#include "ctable/merge.c"
#include "ctable/lists.c"

static PyMethodDef methods[] = {
    {"bucket_of", py_bucket_of, METH_VARARGS, "bucket_of(doi, buckets): a stable hash bucket."},
    {"buckets_of", py_buckets_of, METH_VARARGS,
     "buckets_of(offsets, data, start, n, buckets): buckets of an Arrow string array's rows."},
    {"group_mentions", py_group_mentions, METH_VARARGS,
     "group_mentions(src, rec, doi_offsets, doi_data, doi_start, counts, places, forms, n): the merge's groups."},
    {"doi_lists", py_doi_lists, METH_VARARGS,
     "doi_lists(docs, ats, doi_offsets, doi_data, doi_start, rows, texts): each text's DOIs as a list column's buffers."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ctable", "The mention table and the merge's grouping, in C.", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ctable(void)
{
    if (PyType_Ready(&MentionsType) < 0)
        return NULL;
    /* the matcher finds the table's C entry point on its type (sink.h) */
    PyObject *cap = PyCapsule_New((void *)&SINK_API, DOI_SINK_CAPSULE, NULL);
    if (cap == NULL)
        return NULL;
    int rc = PyDict_SetItemString(MentionsType.tp_dict, DOI_SINK_ATTR, cap);
    Py_DECREF(cap);
    if (rc < 0)
        return NULL;
    PyType_Modified(&MentionsType);
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&MentionsType);
    if (PyModule_AddObject(m, "Mentions", (PyObject *)&MentionsType) < 0) {
        Py_DECREF(&MentionsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
