/* ---- A column of identifiers to canonical DOIs (identifiers.canonicalize, element-wise) -------
 *
 * On an Arrow string column's buffers, no pyarrow here: the values that are plainly one DOI —
 * ASCII, bare, behind `doi:` or a doi.org resolver, a suffix of letters, digits, . _ - / : and
 * balanced parentheses, ending in a letter, digit or ")", so that no rule of spec §4 can end it
 * early — are folded here;
 * a URL of a publisher or another site is read by the C plain scan as canonicalize reads it
 * with find_dois (col_url_key); every other value is given to the Python function
 * (canonicalize itself). tests/test_arrow.py holds the column and canonicalize together.
 */

static inline int col_suffix_char(unsigned char c)
{
    return ascii_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == '-' || c == '/' || c == ':';
}

/* The prefixes read here (identifiers._ID_PREFIX's, lower case); the label's spaces after it. */
static const Word COL_PREFIXES[] = {
    W("https://doi.org/"), W("http://doi.org/"), W("https://dx.doi.org/"), W("http://dx.doi.org/"), W("https://www.doi.org/"), W("doi.org/"), W("doi:"),
};

static int col_prefix(const unsigned char *s, Py_ssize_t n, Py_ssize_t *at)
{
    for (size_t p = 0; p < sizeof COL_PREFIXES / sizeof *COL_PREFIXES; p++) {
        Py_ssize_t k = COL_PREFIXES[p].len;
        if (n < k)
            continue;
        Py_ssize_t i = 0;
        while (i < k && (s[i] | (ascii_alpha(s[i]) ? 0x20 : 0)) == (unsigned char)COL_PREFIXES[p].s[i])
            i++;
        if (i < k)
            continue;
        if (COL_PREFIXES[p].s[k - 1] == ':')
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
    Py_ssize_t i;
    col_prefix(s, n, &i);
    Py_ssize_t name = i;
    if (n - i < 5 || s[i] != '1' || s[i + 1] != '0' || s[i + 2] != '.')
        return -1;
    for (Py_ssize_t j = 0; j < n; j++)
        if (s[j] >= 0x80)
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

/* Publisher and other URLs (identifiers.parse_identifier's last branch): a value that begins
 * with http:// or https://, no prefix of _ID_PREFIX after it (a doi.org, dx.doi.org or
 * hdl.handle.net resolver is read above or by canonicalize), ASCII with no character of
 * rules.RUN_END and no '"'. canonicalize reads it as find_dois reads plain text and takes its
 * first hit in URL form (or at its start); here the C plain scan, held equal to find_dois by
 * the differential tests, reads it the same way. A shortDOI among its hits is left to
 * canonicalize. The key's length into out; -1: no DOI; -2: canonicalize decides; -3: an error. */
static const Word COL_RESOLVERS[] = {W("dx.doi.org/"), W("doi.org/"), W("www.doi.org/"), W("hdl.handle.net/")};

static int col_starts(const unsigned char *s, Py_ssize_t n, Word p)
{
    if (n < p.len)
        return 0;
    for (Py_ssize_t i = 0; i < p.len; i++)
        if ((s[i] | (ascii_alpha(s[i]) ? 0x20 : 0)) != (unsigned char)p.s[i])
            return 0;
    return 1;
}

static int col_url_form(int form)
{
    return form == F_RESOLVER || form == F_DX_RESOLVER || form == F_HANDLE || form == F_OTHER_URL || form == F_PERCENT;
}

typedef struct {
    PFound found; /* a value's hits */
    cp_t *run;    /* the scan's run buffers (scan_in), allocated once for a column */
    Py_ssize_t *bo;
} ColScan;

/* The first "10." in [s, end), or NULL. */
static const unsigned char *col_find10(const unsigned char *s, const unsigned char *end)
{
    while (end - s >= 3 && (s = memchr(s, '1', (size_t)(end - s - 2))) != NULL) {
        if (s[1] == '0' && s[2] == '.')
            return s;
        s++;
    }
    return NULL;
}

/* The key of a publisher URL whose DOI no rule of spec §4 can shorten, without the plain scan:
 * one "10." in the value, right after a "/" (a path segment) or a "doi=" query parameter, the
 * prefix 10.NNNN(.NNNN)* and "/" (or "%2F"), then a suffix of letters, digits, "-", "_" and "."
 * that runs to the value's end (a path) or to "&" (a query) and ends in a letter or digit, with
 * no "/" (no view segment, file store or OUP id), its last "."-piece all digits (no extension:
 * .pdf, .mp4, .full), and no "<digit>v<digits>" end without a "." (bioRxiv's version tail). No
 * "10/" or "rg/" (a shortDOI's trigger) anywhere, and no character that stops a token before the
 * "10.". So the SpringerLink and Scopus export columns' values; anything else is read by the plain
 * scan. The key's length into out, or -2. */
static Py_ssize_t col_plain_url_key(const unsigned char *s, Py_ssize_t n, char *out)
{
    for (const unsigned char *sl = memchr(s, '/', (size_t)n); sl != NULL;
         sl = memchr(sl + 1, '/', (size_t)(n - (sl + 1 - s)))) {
        if (sl - s >= 2) {
            unsigned char a = sl[-2], b = sl[-1];
            if ((a == '1' && b == '0') || ((a | 0x20) == 'r' && (b | 0x20) == 'g'))
                return -2;
        }
    }
    const unsigned char *at = col_find10(s, s + n);
    if (at == NULL || at == s || col_find10(at + 1, s + n) != NULL)
        return -2;
    /* a character that stops a token (token_stop: `(`, `[`, `<`, `,`, `;` …) before the DOI may
     * end the URL there, which makes the DOI bare and no URL's (the fuzz target `columns` found
     * `https://ab.org[/10.1038/x`): such a value goes to the scan */
    for (const unsigned char *q = s; q < at; q++)
        if (*q < 128 && (ascii_class[*q] & C_STOP))
            return -2;
    Py_ssize_t p = at - s;
    int query = 0;
    if (s[p - 1] == '=') {
        if (p < 5 || !col_starts(s + p - 4, 4, (Word)W("doi=")) || (s[p - 5] != '?' && s[p - 5] != '&'))
            return -2;
        query = 1;
    } else if (s[p - 1] != '/') {
        return -2;
    }
    Py_ssize_t i = p + 3, d = i;
    while (i < n && is_digit(s[i]))
        i++;
    if (i - d < 4 || i - d > 9)
        return -2;
    while (i < n && s[i] == '.') {
        d = ++i;
        while (i < n && is_digit(s[i]))
            i++;
        if (i == d)
            return -2;
    }
    Py_ssize_t k = i - p;
    if (i < n && s[i] == '/')
        i++;
    else if (i + 2 < n && s[i] == '%' && s[i + 1] == '2' && (s[i + 2] | 0x20) == 'f')
        i += 3;
    else
        return -2;
    Py_ssize_t start = i, last_dot = -1;
    while (i < n && (ascii_alpha(s[i]) || is_digit(s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.')) {
        if (s[i] == '.')
            last_dot = i;
        i++;
    }
    if (i == start || !(i == n || (query && s[i] == '&')))
        return -2;
    if (!(ascii_alpha(s[i - 1]) || is_digit(s[i - 1])))
        return -2;
    if (last_dot >= 0) {
        for (Py_ssize_t j = last_dot + 1; j < i; j++)
            if (!is_digit(s[j]))
                return -2;
    } else {
        Py_ssize_t j = i;
        while (j > start && is_digit(s[j - 1]))
            j--;
        if (j < i && j - 1 > start && (s[j - 1] | 0x20) == 'v' && is_digit(s[j - 2]))
            return -2;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        out[j] = (char)s[p + j];
    out[k++] = '/';
    for (Py_ssize_t j = start; j < i; j++)
        out[k++] = (char)((s[j] >= 'A' && s[j] <= 'Z') ? s[j] + 32 : s[j]);
    return k;
}

static Py_ssize_t col_url_key(const unsigned char *s, Py_ssize_t n, char *out, ColScan *c)
{
    PFound *f = &c->found;
    static const Word HTTPS = W("https://"), HTTP = W("http://");
    Py_ssize_t at = col_starts(s, n, HTTPS) ? 8 : col_starts(s, n, HTTP) ? 7 : 0;
    if (at == 0)
        return -2;
    for (size_t p = 0; p < sizeof COL_RESOLVERS / sizeof *COL_RESOLVERS; p++)
        if (col_starts(s + at, n - at, COL_RESOLVERS[p]))
            return -2;
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] >= 0x7f || s[i] <= 0x20 || s[i] == '"')
            return -2;
    Py_ssize_t plain = col_plain_url_key(s + at, n - at, out);
    if (plain >= 0)
        return plain;
    Buf B = {s, n, NULL};
    Sink k;
    memset(&k, 0, sizeof k);
    k.hi = n;
    k.rhi = n + 1;
    k.line_base = -1;
    k.collect = f;
    f->n = f->nn = f->nu = 0;
    if (c->run == NULL) {
        c->run = PyMem_Malloc(sizeof(cp_t) * RUN_CAP);
        c->bo = PyMem_Malloc(sizeof(Py_ssize_t) * RUN_CAP);
        if (c->run == NULL || c->bo == NULL) {
            PyErr_NoMemory();
            return -3;
        }
    }
    if (scan_in(&B, &k, c->run, c->bo) < 0)
        return -3;
    for (Py_ssize_t h = 0; h < f->n; h++) {
        const PHit *x = &f->hit[h];
        if (x->form == F_SHORT_DOI)
            return -2;
        if (x->start == 0 || col_url_form(x->form)) {
            char kb[KEY_BYTES];
            Py_ssize_t kn = name_key(f->names + x->name, x->len, kb);
            if (kn > n)
                return -2;
            memcpy(out, kb, (size_t)kn);
            return kn;
        }
    }
    return -1;
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
    ColScan urls = {0}; /* a URL's scan (col_url_key), its buffers reused value after value */
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
        if (k < 0)
            k = col_url_key(data + a, z - a, out + pos, &urls);
        if (k == -3) {
            ok = 0;
            break;
        }
        if (k == -1) {
            nulls++;
            continue;
        }
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
    pfound_free(&urls.found);
    PyMem_Free(urls.run);
    PyMem_Free(urls.bo);
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
