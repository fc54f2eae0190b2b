/* The merge's C helpers: the bucket of a DOI or of an Arrow string column's rows, and the
 * grouping of partial mention rows (finalize.py, dedupe.py). Part of _ctable.c. */

/* A stable bucket for a DOI: FNV-1a (64 bit) of its UTF-8 bytes, modulo `buckets`. */
static PyObject *py_bucket_of(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *s;
    Py_ssize_t buckets;
    if (!PyArg_ParseTuple(args, "Un", &s, &buckets))
        return NULL;
    if (buckets < 1) {
        PyErr_SetString(PyExc_ValueError, "buckets must be positive");
        return NULL;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL)
        return NULL;
    return PyLong_FromUnsignedLongLong(fnv1a(u, n) % (uint64_t)buckets);
}

/* buckets_of(offsets, data, start, n, buckets): the bucket of each of n strings of an Arrow
 * string array (its int32 offsets and data buffers, rows [start, start + n)), as n int32 in a
 * bytes object: the merge splits a large bucket by them without a Python object per row. */
static PyObject *py_buckets_of(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer off, data;
    Py_ssize_t start, n, buckets;
    if (!PyArg_ParseTuple(args, "y*y*nnn", &off, &data, &start, &n, &buckets))
        return NULL;
    PyObject *out = NULL;
    if (buckets < 1 || buckets > INT32_MAX || start < 0 || n < 0 ||
        (start + n + 1) * (Py_ssize_t)sizeof(int32_t) > off.len) {
        PyErr_SetString(PyExc_ValueError, "buckets_of: bad arguments");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    if (out == NULL)
        goto done;
    const char *offs = (const char *)off.buf;
    char *o = PyBytes_AS_STRING(out);
    int bad = 0;
    /* pure work on buffers this call holds: other threads (the merge's) run meanwhile */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t a, b;
        memcpy(&a, offs + (size_t)(start + i) * sizeof(int32_t), sizeof a);
        memcpy(&b, offs + (size_t)(start + i + 1) * sizeof(int32_t), sizeof b);
        if (a < 0 || b < a || b > data.len) {
            bad = 1;
            break;
        }
        int32_t k = (int32_t)(fnv1a((const char *)data.buf + a, b - a) % (uint64_t)buckets);
        memcpy(o + (size_t)i * sizeof k, &k, sizeof k);
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        Py_CLEAR(out);
        PyErr_SetString(PyExc_ValueError, "buckets_of: offsets out of range");
    }
done:
    PyBuffer_Release(&off);
    PyBuffer_Release(&data);
    return out;
}

/* group_mentions(src, rec, doi_offsets, doi_data, doi_start, counts, places, forms, n): the
 * merge's grouping of partial mention rows by (source code, record code, DOI), rows given in
 * first-offset order (so a group's first row is its first offset). Each column is a buffer of
 * n values (int32 codes, int64 counts and places, int32 form masks; the DOIs as an Arrow string
 * array's int32 offsets from doi_start and its data). Returns five bytes objects, one value a
 * group in first-seen order: its first row (int32), counts summed (int64), least place (int64),
 * form masks OR-ed (int32), rows (int64). With codes all 0 it groups by DOI alone (dois/). One hash pass instead of the key strings, counts and aggregations
 * Arrow would need (they were half of the merge). With `first_offsets` (int64, one a row) the rows
 * may come in any order: a group's first row is the one of its least first offset, the earliest
 * row on a tie (what a stable sort by offset would have put first). */
static PyObject *py_group_mentions(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer src, rec, off, data, cnt, plc, frm, fo = {0};
    Py_ssize_t start, n;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*y*n|y*", &src, &rec, &off, &data, &start, &cnt, &plc, &frm, &n, &fo))
        return NULL;
    PyObject *result = NULL, *o_first = NULL, *o_count = NULL, *o_place = NULL, *o_forms = NULL, *o_rows = NULL;
    int32_t *slots = NULL;
    if (n < 0 || n > INT32_MAX / 2 || start < 0 || src.len < n * 4 || rec.len < n * 4 || cnt.len < n * 8 ||
        plc.len < n * 8 || frm.len < n * 4 || (start + n + 1) * (Py_ssize_t)sizeof(int32_t) > off.len ||
        (fo.buf != NULL && fo.len < n * 8)) {
        PyErr_SetString(PyExc_ValueError, "group_mentions: bad arguments");
        goto done;
    }
    const int32_t *s = (const int32_t *)src.buf, *r = (const int32_t *)rec.buf, *f = (const int32_t *)frm.buf;
    const int32_t *offs = (const int32_t *)off.buf + start;
    const int64_t *c = (const int64_t *)cnt.buf, *p = (const int64_t *)plc.buf, *fst = (const int64_t *)fo.buf;
    const char *d = (const char *)data.buf;
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    /* the raw allocator: the table is filled without the GIL */
    slots = PyMem_RawMalloc(cap * sizeof *slots);
    o_first = PyBytes_FromStringAndSize(NULL, n * 4);
    o_count = PyBytes_FromStringAndSize(NULL, n * 8);
    o_place = PyBytes_FromStringAndSize(NULL, n * 8);
    o_forms = PyBytes_FromStringAndSize(NULL, n * 4);
    o_rows = PyBytes_FromStringAndSize(NULL, n * 8);
    if (slots == NULL || !o_first || !o_count || !o_place || !o_forms || !o_rows) {
        if (slots == NULL)
            PyErr_NoMemory();
        goto done;
    }
    int32_t *first = (int32_t *)PyBytes_AS_STRING(o_first), *forms = (int32_t *)PyBytes_AS_STRING(o_forms);
    int64_t *count = (int64_t *)PyBytes_AS_STRING(o_count), *place = (int64_t *)PyBytes_AS_STRING(o_place);
    int64_t *rows = (int64_t *)PyBytes_AS_STRING(o_rows);
    Py_ssize_t groups = 0;
    int bad = 0;
    /* pure work on buffers this call holds: the merge's other threads run meanwhile (a run of
     * one worker merges its buckets in threads) */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i <= n; i++)
        if (offs[i] < 0 || offs[i] > data.len || (i && offs[i] < offs[i - 1])) {
            bad = 1;
            break;
        }
    if (!bad)
        memset(slots, 0xff, cap * sizeof *slots);
    for (Py_ssize_t i = 0; i < n && !bad; i++) {
        const char *key = d + offs[i];
        Py_ssize_t klen = offs[i + 1] - offs[i];
        uint64_t h = probe_hash(key, klen); /* placement only: the groups come in first-seen order */
        h = (h ^ (uint32_t)s[i]) * 0x9e3779b97f4a7c15ULL;
        h = (h ^ (uint32_t)r[i]) * 0x9e3779b97f4a7c15ULL;
        size_t at = (size_t)(h >> 17) & (cap - 1);
        for (;;) {
            int32_t g = slots[at];
            if (g < 0) {
                slots[at] = (int32_t)groups;
                first[groups] = (int32_t)i;
                count[groups] = c[i];
                place[groups] = p[i];
                forms[groups] = f[i];
                rows[groups] = 1;
                groups++;
                break;
            }
            int32_t j = first[g];
            if (s[j] == s[i] && r[j] == r[i] && offs[j + 1] - offs[j] == klen && memcmp(d + offs[j], key, (size_t)klen) == 0) {
                count[g] += c[i];
                if (fst != NULL && fst[i] < fst[j])
                    first[g] = (int32_t)i; /* the same key: j's bytes compare as i's */
                if (p[i] < place[g])
                    place[g] = p[i];
                forms[g] |= f[i];
                rows[g]++;
                break;
            }
            at = (at + 1) & (cap - 1);
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "group_mentions: offsets out of range");
        goto done;
    }
    if (_PyBytes_Resize(&o_first, groups * 4) < 0 || _PyBytes_Resize(&o_count, groups * 8) < 0 ||
        _PyBytes_Resize(&o_place, groups * 8) < 0 || _PyBytes_Resize(&o_forms, groups * 4) < 0 ||
        _PyBytes_Resize(&o_rows, groups * 8) < 0)
        goto done;
    result = PyTuple_Pack(5, o_first, o_count, o_place, o_forms, o_rows);
done:
    PyMem_RawFree(slots);
    Py_XDECREF(o_first);
    Py_XDECREF(o_count);
    Py_XDECREF(o_place);
    Py_XDECREF(o_forms);
    Py_XDECREF(o_rows);
    PyBuffer_Release(&src);
    PyBuffer_Release(&rec);
    PyBuffer_Release(&off);
    PyBuffer_Release(&data);
    PyBuffer_Release(&cnt);
    PyBuffer_Release(&plc);
    PyBuffer_Release(&frm);
    if (fo.obj != NULL)
        PyBuffer_Release(&fo);
    return result;
}
