/* Growing buffers on Python's allocator, shared by the matcher (match/_cscan.c) and the mention
 * table (pipeline/_ctable.c). Header-only, static inline. */
#ifndef DOI_MEM_H
#define DOI_MEM_H
#include <Python.h>

/* Room for cap items of `size` bytes at *p; 0, or -1 with MemoryError set. */
static inline int grow(void **p, Py_ssize_t cap, size_t size)
{
    void *q = PyMem_Realloc(*p, size * (size_t)cap);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    return 0;
}

/* Room for `more` bytes at the end of a byte buffer of `len` (capacity *cap, doubled from 64 KiB
 * as it fills); 0, or -1 with MemoryError set. */
static inline int arena_room(char **arena, Py_ssize_t len, Py_ssize_t *cap, Py_ssize_t more)
{
    if (len + more <= *cap)
        return 0;
    Py_ssize_t c = *cap ? 2 * *cap : 1 << 16;
    while (c < len + more)
        c *= 2;
    if (grow((void **)arena, c, 1) < 0)
        return -1;
    *cap = c;
    return 0;
}

#endif
