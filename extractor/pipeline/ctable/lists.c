/* Each text's distinct DOIs as an Arrow list<string> column (batch.find_array, DuckDB's
 * doi_find): the rows of a batch's mention table — each its text, the offset of its first hit and
 * its DOI — ordered by (text, offset, DOI) and cut by text, in C on the buffers. Part of
 * _ctable.c. */

typedef struct {
    const int64_t *doc, *at;
    const int32_t *off;  /* the DOIs' string offsets, from the array's first row */
    const char *data;
} ListRows;

static ListRows *list_rows; /* the rows a sort compares (qsort takes no context) */

static int list_row_cmp(const void *pa, const void *pb)
{
    Py_ssize_t a = *(const Py_ssize_t *)pa, b = *(const Py_ssize_t *)pb;
    const ListRows *r = list_rows;
    if (r->doc[a] != r->doc[b])
        return r->doc[a] < r->doc[b] ? -1 : 1;
    if (r->at[a] != r->at[b])
        return r->at[a] < r->at[b] ? -1 : 1;
    int32_t la = r->off[a + 1] - r->off[a], lb = r->off[b + 1] - r->off[b];
    int c = memcmp(r->data + r->off[a], r->data + r->off[b], (size_t)(la < lb ? la : lb));
    if (c != 0)
        return c;
    if (la != lb)
        return la < lb ? -1 : 1;
    return a < b ? -1 : a > b; /* a stable order */
}

/* doi_lists(docs, ats, doi_offsets, doi_data, doi_start, rows, texts) -> (list_offsets, offsets,
 * data): `rows` rows of int64 texts (each in [0, texts)) and first offsets, and an Arrow string
 * array's int32 offsets (from row doi_start) and data; the int32 offsets of a list array of
 * `texts` lists, and the int32 offsets and data of its strings, ordered by (text, offset, DOI). */
static PyObject *py_doi_lists(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer docs, ats, offs, data;
    Py_ssize_t start, rows, texts;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nnn", &docs, &ats, &offs, &data, &start, &rows, &texts))
        return NULL;
    PyObject *o_lists = NULL, *o_offs = NULL, *o_data = NULL, *out = NULL;
    Py_ssize_t *order = NULL;
    if (rows < 0 || texts < 0 || docs.len < 8 * rows || ats.len < 8 * rows ||
        offs.len < 4 * (start + rows + 1) || start < 0) {
        PyErr_SetString(PyExc_ValueError, "doi_lists: buffers shorter than their rows");
        goto done;
    }
    ListRows r = {docs.buf, ats.buf, (const int32_t *)offs.buf + start, data.buf};
    Py_ssize_t total = rows ? r.off[rows] - r.off[0] : 0;
    if (total < 0 || r.off[0] < 0 || (rows && r.off[rows] > data.len)) {
        PyErr_SetString(PyExc_ValueError, "doi_lists: string offsets out of their data");
        goto done;
    }
    order = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(rows + 1));
    if (order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int sorted = 1;
    for (Py_ssize_t i = 0; i < rows; i++) {
        order[i] = i;
        if (r.doc[i] < 0 || r.doc[i] >= texts) {
            PyErr_SetString(PyExc_ValueError, "doi_lists: a row's text out of range");
            goto done;
        }
        if (i && sorted) {
            list_rows = &r;
            Py_ssize_t a = i - 1, b = i;
            sorted = list_row_cmp(&a, &b) < 0;
        }
    }
    if (!sorted) {
        list_rows = &r;
        qsort(order, (size_t)rows, sizeof *order, list_row_cmp);
    }
    if (total > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "doi_lists: more than 2 GiB of DOIs");
        goto done;
    }
    o_lists = PyBytes_FromStringAndSize(NULL, 4 * (texts + 1));
    o_offs = PyBytes_FromStringAndSize(NULL, 4 * (rows + 1));
    o_data = PyBytes_FromStringAndSize(NULL, total);
    if (o_lists == NULL || o_offs == NULL || o_data == NULL)
        goto done;
    int32_t *lists = (int32_t *)PyBytes_AS_STRING(o_lists), *so = (int32_t *)PyBytes_AS_STRING(o_offs);
    char *sd = PyBytes_AS_STRING(o_data);
    memset(lists, 0, 4 * (size_t)(texts + 1));
    int32_t at = 0;
    so[0] = 0;
    for (Py_ssize_t j = 0; j < rows; j++) {
        Py_ssize_t i = order[j];
        int32_t len = r.off[i + 1] - r.off[i];
        memcpy(sd + at, r.data + r.off[i], (size_t)len);
        at += len;
        so[j + 1] = at;
        lists[r.doc[i] + 1]++;
    }
    for (Py_ssize_t t = 0; t < texts; t++)
        lists[t + 1] += lists[t];
    out = PyTuple_Pack(3, o_lists, o_offs, o_data);
done:
    PyMem_Free(order);
    Py_XDECREF(o_lists);
    Py_XDECREF(o_offs);
    Py_XDECREF(o_data);
    PyBuffer_Release(&docs);
    PyBuffer_Release(&ats);
    PyBuffer_Release(&offs);
    PyBuffer_Release(&data);
    return out;
}
