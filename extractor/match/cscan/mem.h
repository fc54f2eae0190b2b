/* Growing buffers on Python's allocators, shared by the matcher (match/_cscan.c) and the mention
 * table (pipeline/_ctable.c). Header-only, static inline. */
#ifndef DOI_MEM_H
#define DOI_MEM_H
#include <Python.h>

/* An exception set whether or not this thread holds the GIL (code that runs without it, as the
 * matcher's batch of texts and the mention table it fills do, reports its errors so). */
static inline void raise_anyhow(PyObject *type, const char *message)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    if (message == NULL)
        PyErr_NoMemory();
    else
        PyErr_SetString(type, message);
    PyGILState_Release(gil);
}

/* Room for cap items of `size` bytes at *p; 0, or -1 with MemoryError set. `raw`: on the raw
 * allocator (free with PyMem_RawFree), which needs no GIL. */
static inline int grow_in(void **p, Py_ssize_t cap, size_t size, int raw)
{
    void *q = raw ? PyMem_RawRealloc(*p, size * (size_t)cap) : PyMem_Realloc(*p, size * (size_t)cap);
    if (q == NULL) {
        if (raw)
            raise_anyhow(PyExc_MemoryError, NULL);
        else
            PyErr_NoMemory();
        return -1;
    }
    *p = q;
    return 0;
}

static inline int grow(void **p, Py_ssize_t cap, size_t size) { return grow_in(p, cap, size, 0); }

/* Room for `more` bytes at the end of a byte buffer of `len` (capacity *cap, doubled from 64 KiB
 * as it fills); 0, or -1 with MemoryError set. `raw` as grow_in's. */
static inline int arena_room_in(char **arena, Py_ssize_t len, Py_ssize_t *cap, Py_ssize_t more, int raw)
{
    if (len + more <= *cap)
        return 0;
    Py_ssize_t c = *cap ? 2 * *cap : 1 << 16;
    while (c < len + more)
        c *= 2;
    if (grow_in((void **)arena, c, 1, raw) < 0)
        return -1;
    *cap = c;
    return 0;
}

static inline int arena_room(char **arena, Py_ssize_t len, Py_ssize_t *cap, Py_ssize_t more)
{
    return arena_room_in(arena, len, cap, more, 0);
}

#endif
