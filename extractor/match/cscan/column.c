/* ---- A column of identifiers to canonical DOIs (identifiers.canonicalize, element-wise) -------
 *
 * On an Arrow string column's buffers, no pyarrow here: the values that are plainly one DOI —
 * ASCII, bare, behind `doi:` or a doi.org resolver, a suffix of letters, digits, . _ - / : and
 * balanced parentheses, ending in a letter, digit or ")", so that no rule of spec §4 can end it
 * early — are folded here;
 * every other value is given to the Python function (canonicalize itself), so the result is
 * canonicalize's by construction. tests/test_arrow.py holds the two together.
 */

static inline int col_suffix_char(unsigned char c)
{
    return ascii_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == '-' || c == '/' || c == ':';
}

/* The prefixes read here (identifiers._ID_PREFIX's, lower case); the label's spaces after it. */
static const char *const COL_PREFIXES[] = {
    "https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "https://www.doi.org/", "doi.org/", "doi:",
};

static int col_prefix(const unsigned char *s, Py_ssize_t n, Py_ssize_t *at)
{
    for (size_t p = 0; p < sizeof COL_PREFIXES / sizeof *COL_PREFIXES; p++) {
        Py_ssize_t k = (Py_ssize_t)strlen(COL_PREFIXES[p]);
        if (n < k)
            continue;
        Py_ssize_t i = 0;
        while (i < k && (s[i] | (ascii_alpha(s[i]) ? 0x20 : 0)) == (unsigned char)COL_PREFIXES[p][i])
            i++;
        if (i < k)
            continue;
        if (COL_PREFIXES[p][k - 1] == ':')
            while (k < n && (s[k] == ' ' || s[k] == '\t'))
                k++;
        *at = k;
        return 1;
    }
    *at = 0;
    return 1;
}

/* The canonical DOI of s[0:n) into out (n bytes), when the value is plainly one DOI; else -1
 * (canonicalize decides). */
static Py_ssize_t col_fast_key(const unsigned char *s, Py_ssize_t n, char *out)
{
    while (n > 0 && s[n - 1] < 0x80 && is_space(s[n - 1])) /* str.strip's ASCII whitespace */
        n--;
    while (n > 0 && s[0] < 0x80 && is_space(s[0]))
        s++, n--;
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] >= 0x80)
            return -1;
    Py_ssize_t i;
    col_prefix(s, n, &i);
    Py_ssize_t name = i;
    if (n - i < 5 || s[i] != '1' || s[i + 1] != '0' || s[i + 2] != '.')
        return -1;
    i += 3;
    for (;;) { /* the prefix: 10. digits (. digits)* / */
        Py_ssize_t d = i;
        while (i < n && is_digit(s[i]))
            i++;
        if (i == d || i >= n)
            return -1;
        if (s[i] == '/')
            break;
        if (s[i] != '.')
            return -1;
        i++;
    }
    i++;
    if (i >= n || !(ascii_alpha(s[n - 1]) || is_digit(s[n - 1]) || s[n - 1] == ')'))
        return -1;
    Py_ssize_t depth = 0; /* spec §4: a ")" that closes nothing ends a DOI; balanced ones are kept */
    for (Py_ssize_t j = i; j < n; j++) {
        if (s[j] == '(')
            depth++;
        else if (s[j] == ')' && --depth < 0)
            return -1;
        else if (s[j] != ')' && !col_suffix_char(s[j]))
            return -1;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t j = name; j < n; j++)
        out[k++] = (char)((s[j] >= 'A' && s[j] <= 'Z') ? s[j] + 32 : s[j]);
    return k;
}

/* canonical_column(offsets, data, validity, offset, length, large, fallback) ->
 * (validity, offsets, data, null_count): an Arrow string (large: large_string) column's buffers
 * to its canonical DOIs' buffers, of the same type, null where a value is null or no DOI. */
static PyObject *py_canonical_column(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer ob, db, vb = {0};
    PyObject *validity, *fallback;
    Py_ssize_t offset, length;
    int large;
    if (!PyArg_ParseTuple(args, "y*y*OnnpO", &ob, &db, &validity, &offset, &length, &large, &fallback))
        return NULL;
    PyObject *result = NULL, *vout = NULL, *oout = NULL, *dout = NULL;
    int have_validity = validity != Py_None;
    size_t w = large ? 8 : 4;
    if (have_validity && PyObject_GetBuffer(validity, &vb, PyBUF_SIMPLE) < 0)
        goto done;
    if (offset < 0 || length < 0 || (size_t)ob.len < (size_t)(offset + length + 1) * w ||
        (have_validity && vb.len * 8 < offset + length)) {
        PyErr_SetString(PyExc_ValueError, "buffers too short for the column");
        goto done;
    }
    const unsigned char *valid = have_validity ? vb.buf : NULL;
    const unsigned char *data = db.buf;
    Py_ssize_t data_end = (Py_ssize_t)(large ? ((const int64_t *)ob.buf)[offset + length]
                                             : ((const int32_t *)ob.buf)[offset + length]);
    if (data_end > db.len) {
        PyErr_SetString(PyExc_ValueError, "offsets past the data buffer");
        goto done;
    }
    vout = PyBytes_FromStringAndSize(NULL, (length + 7) / 8);
    oout = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((size_t)(length + 1) * w));
    if (vout == NULL || oout == NULL)
        goto done;
    unsigned char *vo = (unsigned char *)PyBytes_AS_STRING(vout);
    memset(vo, 0, (size_t)((length + 7) / 8));
    char *oo = PyBytes_AS_STRING(oout);
    /* a canonical DOI is never longer than its value (a prefix dropped, escapes decoded) */
    char *out = PyMem_Malloc((size_t)(data_end > 0 ? data_end : 1));
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t pos = 0, nulls = 0;
    int ok = 1;
    for (Py_ssize_t r = 0; ok && r < length; r++) {
        Py_ssize_t x = offset + r;
        if (large)
            ((int64_t *)oo)[r] = pos;
        else
            ((int32_t *)oo)[r] = (int32_t)pos;
        if (valid != NULL && !(valid[x >> 3] >> (x & 7) & 1)) {
            nulls++;
            continue;
        }
        Py_ssize_t a = (Py_ssize_t)(large ? ((const int64_t *)ob.buf)[x] : ((const int32_t *)ob.buf)[x]);
        Py_ssize_t z = (Py_ssize_t)(large ? ((const int64_t *)ob.buf)[x + 1] : ((const int32_t *)ob.buf)[x + 1]);
        if (a < 0 || z < a || z > data_end) {
            PyErr_SetString(PyExc_ValueError, "offsets out of order");
            ok = 0;
            break;
        }
        Py_ssize_t k = col_fast_key(data + a, z - a, out + pos);
        if (k < 0) { /* canonicalize decides */
            PyObject *value = PyUnicode_DecodeUTF8((const char *)data + a, z - a, "surrogateescape");
            PyObject *doi = value == NULL ? NULL : PyObject_CallOneArg(fallback, value);
            Py_XDECREF(value);
            if (doi == NULL) {
                ok = 0;
                break;
            }
            if (doi != Py_None) {
                const char *u = PyUnicode_Check(doi) ? PyUnicode_AsUTF8AndSize(doi, &k) : NULL;
                if (u == NULL || k > z - a) {
                    if (u != NULL)
                        PyErr_SetString(PyExc_ValueError, "a canonical DOI longer than its value");
                    else if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_TypeError, "the fallback must return a string or None");
                    Py_DECREF(doi);
                    ok = 0;
                    break;
                }
                memcpy(out + pos, u, (size_t)k);
            }
            Py_DECREF(doi);
            if (k < 0) {
                nulls++;
                continue;
            }
        }
        vo[r >> 3] |= (unsigned char)(1u << (r & 7));
        pos += k;
    }
    if (ok) {
        if (large)
            ((int64_t *)oo)[length] = pos;
        else
            ((int32_t *)oo)[length] = (int32_t)pos;
        dout = PyBytes_FromStringAndSize(out, pos);
        if (dout != NULL)
            result = Py_BuildValue("(OOOn)", vout, oout, dout, nulls);
    }
    PyMem_Free(out);
done:
    Py_XDECREF(vout);
    Py_XDECREF(oout);
    Py_XDECREF(dout);
    if (have_validity && vb.obj != NULL)
        PyBuffer_Release(&vb);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&db);
    return result;
}
