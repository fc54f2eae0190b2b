/* The module's glue: scan() and pdf_scan() from Python, the byte helpers of the window loop
 * (newlines, invalid_bytes), the tables checked by match/native.py, and the method table. Part
 * of _cscan.c. */

/* scan() and pdf_scan() from Python: the same arguments, and `rekey` for PDF text. */
static PyObject *scan_call(PyObject *args, PyObject *kw, int pdf)
{
    static char *kwlist[] = {"data",  "lo",        "hi",        "rlo",     "rhi",     "base", "mentions", "hits",
                             "chars", "line_base", "line_from", "line_to", "rekey",   NULL};
    static char *plain_kwlist[] = {"data", "lo", "hi", "rlo", "rhi", "base", "mentions", "hits", "chars", "line_base",
                                   "line_from", "line_to", NULL};
    Py_buffer view;
    Sink k = {0};
    PyObject *mentions = Py_None, *hits = Py_None, *rekey = Py_None;
    long long base = 0, line_base = -1;
    Py_ssize_t line_from = 0, line_to = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, pdf ? "y*nnnn|LOOpLnnO" : "y*nnnn|LOOpLnn", pdf ? kwlist : plain_kwlist, &view, &k.lo, &k.hi,
                                     &k.rlo, &k.rhi, &base, &mentions, &hits, &k.chars, &line_base, &line_from, &line_to,
                                     &rekey))
        return NULL;
    if (line_base >= 0 && (line_from < 0 || line_from > view.len || line_to > view.len)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "line_from or line_to out of range");
        return NULL;
    }
    k.line_base = line_base < 0 ? -1 : (int64_t)line_base;
    k.lb = line_from;
    if (sink_bind(&k, mentions) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (hits != Py_None && !PyList_Check(hits)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "hits must be a list or None");
        return NULL;
    }
    k.base = base;
    k.hits = hits == Py_None ? NULL : hits;
    Buf B = {(const unsigned char *)view.buf, view.len, NULL};
    int rc = pdf ? pdf_scan(&B, &k, rekey) : scan(&B, &k);
    long long lines = rc == 0 ? newlines_to(&k, &B, line_to) : -1;
    PyBuffer_Release(&view);
    if (rc < 0)
        return NULL;
    return Py_BuildValue("(nnnL)", k.reported, k.last_end, k.too_long, lines);
}

static PyObject *py_scan(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    return scan_call(args, kw, 0);
}

static PyObject *py_pdf_scan(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    if (far_call == NULL) { /* the far joins would be left out without a word */
        PyErr_SetString(PyExc_RuntimeError, "pdf_scan: set_far was not called (match/native.py calls it)");
        return NULL;
    }
    return scan_call(args, kw, 1);
}

/* Whether a record's text is prose as its head tells (search.py's batch of records): nothing in its
 * first `head` characters (in the first 4 * head bytes, which hold them) that a sniff of
 * decode.detect_kind or syntaxes.detect_syntax needs to say markup:
 * - HTML or XML: a `<` before a letter, `!` or `?` (every alternative of _HTML_SNIFF and
 *   _MARKUP_START); PDF text: a form feed;
 * - wikitext: `{{`; LaTeX: a backslash; a BibTeX entry: an `@` with nothing but spaces before it
 *   on its line; JSON: `{` or `[` first, after spaces.
 * A space here is any byte up to 0x20 or a non-ASCII one (str.isspace holds of some). False sends
 * the record to those Python sniffs, so it is never a guess. */
/* The marks of the syntaxes told by content (MARK_*, tables.h: syntaxes.MARKS, every row's joined): a
 * head's first character after spaces, a character anywhere, a run of two, a character with only
 * spaces before it on its line. */
static int in_set(const char *set, unsigned char c)
{
    return c != 0 && memchr(set, c, strlen(set)) != NULL;
}

static int prose_head(const unsigned char *b, Py_ssize_t n, Py_ssize_t head, int sniff_kind, int sniff_syntax)
{
    const unsigned char *end = b + (n < 4 * head ? n : 4 * head), *p;
    if (sniff_kind) {
        if (memchr(b, '\f', (size_t)(end - b)))
            return 0;
        for (p = b; (p = memchr(p, '<', (size_t)(end - p))) != NULL; p++)
            if (p + 1 >= end || ((p[1] | 0x20) >= 'a' && (p[1] | 0x20) <= 'z') || p[1] == '!' || p[1] == '?')
                return 0;
    }
    if (sniff_syntax && end > b) {
        /* a space (or a non-ASCII byte, which str.isspace may hold of) first: the opens after it
         * are not looked for, the text is read by the Python sniffs */
        if (b[0] <= ' ' || b[0] >= 0x7f || in_set(MARK_OPENS, b[0]))
            return 0;
        for (const char *m = MARK_ANYWHERE; *m; m++)
            if (memchr(b, *m, (size_t)(end - b)))
                return 0;
        for (const char *const *pair = MARK_PAIRS; *pair != NULL; pair++)
            for (p = b; (p = memchr(p, (unsigned char)(*pair)[0], (size_t)(end - p))) != NULL; p++)
                if (p + 1 >= end || p[1] == (unsigned char)(*pair)[1])
                    return 0;
        for (const char *m = MARK_LINE_START; *m; m++)
            for (p = b; (p = memchr(p, (unsigned char)*m, (size_t)(end - p))) != NULL; p++) {
                const unsigned char *q = p;
                while (q > b && q[-1] != '\n' && (q[-1] <= ' ' || q[-1] >= 0x80))
                    q--;
                if (q == b || q[-1] == '\n')
                    return 0;
            }
    }
    return 1;
}

/* A batch of records' texts read into one table (scan_texts, scan_arrow_texts): each text that is
 * plainly prose is scanned whole as the document given, offsets in characters. */
typedef struct {
    Sink base;
    PyObject *mentions;
    cp_t *s;          /* the scan's run buffers, kept for the whole batch */
    Py_ssize_t *bo;
    Py_ssize_t head, reported, too_long;
    Py_ssize_t max_rows; /* the table's rows after which no further text is read (0: no bound) */
    int sniff_kind, sniff_syntax;
    PyObject *ends; /* with a list of hits: each text's end in it (a list), or NULL */
} TextBatch;

/* The batch's table (None: its hits listed alone, in base.hits) and lists; 0, or -1 with an
 * exception. */
static int batch_open(TextBatch *t, PyObject *mentions, PyObject *hits, PyObject *ends)
{
    if ((hits != NULL && hits != Py_None && !PyList_Check(hits)) || (ends != NULL && ends != Py_None && !PyList_Check(ends))) {
        PyErr_SetString(PyExc_TypeError, "hits and ends must be lists, or None");
        return -1;
    }
    t->base.hits = hits == Py_None ? NULL : hits;
    t->ends = t->base.hits == NULL || ends == Py_None ? NULL : ends;
    if (mentions == Py_None && t->base.hits == NULL) {
        PyErr_SetString(PyExc_TypeError, "a batch of texts needs a mention table or a list of hits");
        return -1;
    }
    if (sink_bind(&t->base, mentions) < 0)
        return -1;
    t->mentions = mentions;
    t->s = PyMem_Malloc(sizeof(cp_t) * RUN_CAP);
    t->bo = PyMem_Malloc(sizeof(Py_ssize_t) * RUN_CAP);
    if (t->s == NULL || t->bo == NULL) {
        PyMem_Free(t->s);
        PyMem_Free(t->bo);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Read one text (valid UTF-8) as document `doc`: 1 when read, 2 when read and the table holds
 * max_rows rows or more, 0 when it is not plainly prose (prose_head: the caller's to read), -1
 * with an exception. Into a C table (base.sink) it touches no Python object: it may run
 * without the GIL. */
static int batch_text(TextBatch *t, const unsigned char *u, Py_ssize_t n, int64_t doc)
{
    if (!prose_head(u, n, t->head, t->sniff_kind, t->sniff_syntax))
        return 0;
    if (t->base.sink != NULL) {
        if (t->base.sink->set_doc(t->mentions, doc) < 0)
            return -1;
    } else if (t->mentions != Py_None) {
        PyObject *r = PyObject_CallMethod(t->mentions, "set_doc", "L", (long long)doc);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
    }
    Sink k = t->base;
    k.lo = 0, k.hi = n, k.rlo = 0, k.rhi = n + 1, k.chars = 1, k.line_base = -1;
    Buf B = {u, n, NULL};
    if (scan_in(&B, &k, t->s, t->bo) < 0)
        return -1;
    t->reported += k.reported;
    t->too_long += k.too_long;
    if (t->ends != NULL) {
        PyObject *end = PyLong_FromSsize_t(PyList_GET_SIZE(t->base.hits));
        int bad = end == NULL || PyList_Append(t->ends, end) < 0;
        Py_XDECREF(end);
        if (bad)
            return -1;
    }
    if (t->max_rows > 0 && t->mentions != Py_None) {
        Py_ssize_t rows = t->base.sink != NULL ? t->base.sink->rows(t->mentions) : PyObject_Size(t->mentions);
        if (rows < 0)
            return -1;
        if (rows >= t->max_rows)
            return 2; /* read, and the table is full: the caller hands its rows on */
    }
    return 1;
}

static PyObject *batch_close(TextBatch *t, Py_ssize_t next, int rc)
{
    PyMem_Free(t->s);
    PyMem_Free(t->bo);
    if (rc < 0)
        return NULL;
    return Py_BuildValue("(nnn)", next, t->reported, t->too_long);
}

/* scan_texts(texts, start, mentions, head, sniff_kind, sniff_syntax, doc_base=0, max_rows=0) -> (next,
 * reported, too_long): records' texts (a list of str) read as plain prose from texts[start] on,
 * texts[i] as document doc_base + i of `mentions` (set_doc), offsets counting characters; it
 * stops at the first text that is not plainly prose (prose_head) or holds a lone surrogate,
 * whose index it returns for the caller to read (len(texts) when all were read), or after the
 * text that brought the table to max_rows rows (the caller hands them on: memory stays bounded
 * however many DOIs the texts hold). */
static PyObject *py_scan_texts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *texts, *mentions;
    Py_ssize_t start;
    long long doc_base = 0;
    TextBatch t = {0};
    if (!PyArg_ParseTuple(args, "O!nOnpp|Ln", &PyList_Type, &texts, &start, &mentions, &t.head, &t.sniff_kind,
                          &t.sniff_syntax, &doc_base, &t.max_rows) ||
        batch_open(&t, mentions, NULL, NULL) < 0)
        return NULL;
    Py_ssize_t i = start < 0 ? 0 : start;
    int rc = 0;
    for (; i < PyList_GET_SIZE(texts); i++) {
        PyObject *str = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(str))
            break;
        Py_ssize_t n;
        const char *u = PyUnicode_AsUTF8AndSize(str, &n);
        if (u == NULL) { /* a lone surrogate (an invalid byte of the record): the caller's */
            PyErr_Clear();
            break;
        }
        if ((rc = batch_text(&t, (const unsigned char *)u, n, doc_base + i)) != 1) {
            i += rc == 2; /* the full table's last text was read */
            break;
        }
    }
    return batch_close(&t, i, rc);
}

/* scan_arrow_texts(offsets, data, offset, length, large, start, mentions, head, sniff_kind,
 * sniff_syntax, doc_base=0, max_rows=0, hits=None, ends=None): scan_texts for an Arrow string array
 * given as its buffers (int32 offsets, or int64 when `large`; the array's own offset and length),
 * valid UTF-8 and no nulls (the caller checks): no Python object per text. With a list `hits`,
 * every hit is listed too, as scan() lists a text's (`mentions` may then be None), and each
 * text's end in that list appended to `ends`: the occurrences of a batch in one call. */
static PyObject *py_scan_arrow_texts(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer offs, data;
    PyObject *mentions, *hits = Py_None, *ends = Py_None;
    Py_ssize_t offset, length, start;
    int large;
    long long doc_base = 0;
    TextBatch t = {0};
    if (!PyArg_ParseTuple(args, "y*y*nnpnOnpp|LnOO", &offs, &data, &offset, &length, &large, &start, &mentions, &t.head,
                          &t.sniff_kind, &t.sniff_syntax, &doc_base, &t.max_rows, &hits, &ends))
        return NULL;
    Py_ssize_t width = large ? 8 : 4;
    if (offset < 0 || length < 0 || (offset + length + 1) * width > offs.len) {
        PyBuffer_Release(&offs);
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "the offsets buffer is shorter than the array");
        return NULL;
    }
    if (batch_open(&t, mentions, hits, ends) < 0) {
        PyBuffer_Release(&offs);
        PyBuffer_Release(&data);
        return NULL;
    }
    const unsigned char *d = data.buf;
    Py_ssize_t i = start < 0 ? 0 : start;
    int rc = 0, outside = 0;
    /* Into a C table the texts are read without the GIL: the buffers are held by this call, the
     * table is the sink's alone, and an error is raised as mem.h's raise_anyhow raises it; so
     * the threads of an engine that calls this (DuckDB's, over the row groups of a Parquet file)
     * scan at once. A table of Python's, or a list of hits, is filled with it. */
    PyThreadState *released = t.base.sink != NULL && t.base.hits == NULL ? PyEval_SaveThread() : NULL;
    for (; i < length; i++) {
        int64_t a, b;
        if (large) {
            memcpy(&a, (const char *)offs.buf + 8 * (offset + i), 8);
            memcpy(&b, (const char *)offs.buf + 8 * (offset + i + 1), 8);
        } else {
            int32_t a32, b32;
            memcpy(&a32, (const char *)offs.buf + 4 * (offset + i), 4);
            memcpy(&b32, (const char *)offs.buf + 4 * (offset + i + 1), 4);
            a = a32, b = b32;
        }
        if (a < 0 || b < a || b > data.len) {
            outside = 1;
            rc = -1;
            break;
        }
        if ((rc = batch_text(&t, d + a, (Py_ssize_t)(b - a), doc_base + i)) != 1) {
            i += rc == 2; /* the full table's last text was read */
            break;
        }
    }
    if (released != NULL)
        PyEval_RestoreThread(released);
    if (outside)
        PyErr_SetString(PyExc_ValueError, "a text's offsets lie outside the data buffer");
    PyBuffer_Release(&offs);
    PyBuffer_Release(&data);
    return batch_close(&t, i, rc);
}

/* set_far(go_far, far_anchor, glued, prefixes, ends, heads, far_chars): pdf.go_far_bytes,
 * pdf.far_anchor_bytes, pdf.glued_page_end, the prefixes of pdf.SHAPES with each one's
 * Shape.ends (a tuple of ints) and Shape.heads (the letters a piece starts with), and
 * pdf.FAR_CHARS, for the joins of PDF text farther down (cscan/pdf.c, go_far and far_anchor)
 * and the page numbers glued to a DOI (glued_page_end). */
static PyObject *py_set_far(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *call, *anchor, *glued, *prefixes, *ends, *heads;
    Py_ssize_t chars;
    if (!PyArg_ParseTuple(args, "OOOO!O!O!n", &call, &anchor, &glued, &PyTuple_Type, &prefixes, &PyTuple_Type, &ends,
                          &PyTuple_Type, &heads, &chars))
        return NULL;
    if (PyTuple_GET_SIZE(ends) != PyTuple_GET_SIZE(prefixes) || PyTuple_GET_SIZE(heads) != PyTuple_GET_SIZE(prefixes)) {
        PyErr_SetString(PyExc_ValueError, "set_far: one tuple of ends and one head per prefix");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(prefixes); i++) {
        PyObject *e = PyTuple_GET_ITEM(ends, i), *h = PyTuple_GET_ITEM(heads, i);
        if (!PyUnicode_Check(PyTuple_GET_ITEM(prefixes, i)) || !PyTuple_Check(e) || !PyUnicode_Check(h)) {
            PyErr_SetString(PyExc_TypeError, "set_far: prefixes are str, ends tuples of int, heads str");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(e); j++)
            if (!PyLong_Check(PyTuple_GET_ITEM(e, j))) {
                PyErr_SetString(PyExc_TypeError, "set_far: ends are ints");
                return NULL;
            }
    }
    if (no_pages == NULL && (no_pages = PyFrozenSet_New(NULL)) == NULL)
        return NULL;
    Py_INCREF(call);
    Py_INCREF(anchor);
    Py_INCREF(glued);
    Py_INCREF(prefixes);
    Py_INCREF(ends);
    Py_INCREF(heads);
    Py_XSETREF(far_heads, heads);
    Py_XSETREF(far_call, call);
    Py_XSETREF(far_anchor_call, anchor);
    Py_XSETREF(glued_call, glued);
    Py_XSETREF(far_prefixes, prefixes);
    Py_XSETREF(far_ends, ends);
    far_chars = chars;
    Py_RETURN_NONE;
}

/* A control byte that text does not hold (bounds.CONTROL_BYTES, all below 0x20: tables.h). */
static inline int is_control(unsigned char c) { return c < 0x20 && (CONTROL_MASK >> c) & 1; }

/* control_bytes(data) -> how many control bytes `data` holds (decode.is_binary's test of a file's
 * head), the bytes below 0x20 found 16 at a time where SSE2 is: a text's head is read once,
 * never copied. */
static PyObject *py_control_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view))
        return NULL;
    const unsigned char *b = view.buf;
    Py_ssize_t n = view.len, i = 0, count = 0;
#ifdef __SSE2__
    const __m128i c31 = _mm_set1_epi8(0x1f);
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(b + i));
        /* the bytes <= 0x1f (in text, its line ends and tabs), each asked of the mask */
        unsigned low = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, c31), c31));
        for (; low; low &= low - 1)
            count += is_control(b[i + __builtin_ctz(low)]);
    }
#endif
    for (; i < n; i++)
        count += is_control(b[i]);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

/* newlines(data, start, stop) -> how many newline bytes [start, stop) hold (line numbers). */
static PyObject *py_newlines(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer view;
    Py_ssize_t start = 0, stop = -1;
    if (!PyArg_ParseTuple(args, "y*|nn", &view, &start, &stop))
        return NULL;
    if (stop < 0 || stop > view.len)
        stop = view.len;
    if (start < 0)
        start = 0;
    Py_ssize_t n = start < stop ? count_newlines(view.buf, start, stop) : 0;
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(n);
}

/* invalid_bytes(data, start, stop) -> (count, next): the bytes that are not valid UTF-8 (each
 * reads as one U+FFFD, as surrogateescape + clean give) among the characters starting in
 * [start, stop), and where the first character at or after `stop` starts. */
static PyObject *py_invalid_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer view;
    Py_ssize_t start = 0, stop = -1;
    if (!PyArg_ParseTuple(args, "y*|nn", &view, &start, &stop))
        return NULL;
    const unsigned char *b = view.buf;
    Py_ssize_t n = view.len, i = start < 0 ? 0 : start, bad = 0;
    if (stop < 0 || stop > n)
        stop = n;
    while (i < stop) {
#ifdef __SSE2__
        /* ASCII passes 64 bytes a step, then 16 */
        while (i + 64 <= stop) {
            const __m128i *q = (const __m128i *)(b + i);
            __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(q), _mm_loadu_si128(q + 1)),
                                       _mm_or_si128(_mm_loadu_si128(q + 2), _mm_loadu_si128(q + 3)));
            if (_mm_movemask_epi8(any))
                break;
            i += 64;
        }
        if (i >= stop)
            break;
        if (i + 16 <= stop && !_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(b + i)))) {
            i += 16;
            continue;
        }
#endif
        if (i + 8 <= stop) {
            uint64_t w;
            memcpy(&w, b + i, 8);
            if (!(w & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        cp_t c;
        int k = dec(b, n, i, &c);
        if (k == 1 && b[i] >= 0x80)
            bad++;
        i += k;
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(nn)", bad, i);
}

/* The C side of the tables that must equal the Python rules (checked by match/native.py). */
/* The characters up to `last` for which pred holds. */
static PyObject *chars_where(int (*pred)(cp_t), cp_t last)
{
    Py_UCS4 buf[256];
    Py_ssize_t k = 0;
    for (cp_t c = 0; c <= last && k < 256; c++)
        if (pred(c))
            buf[k++] = c;
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, k);
}
static int is_opener(cp_t c) { return opener(c); }
static int is_closer(cp_t c) { return opener_of(c) != 0; }
/* A NULL-ended array of strings as a tuple. */
static PyObject *str_tuple(const char *const *a)
{
    Py_ssize_t n = 0;
    while (a[n])
        n++;
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyUnicode_FromString(a[i]);
        if (s == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

/* A Word table's words as a tuple. */
static PyObject *word_tuple(const Word *w)
{
    Py_ssize_t n = 0;
    while (w[n].s)
        n++;
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyUnicode_FromStringAndSize(w[i].s, w[i].len);
        if (s == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

/* Add *pair to *joined (the pairs separated by spaces), or end: 0 at the list's end or on an error
 * (*joined then NULL). */
static int pair_joined_ok(PyObject **joined, const char *const *pair)
{
    if (*pair == NULL || *joined == NULL)
        return 0;
    PyObject *next = PyUnicode_FromFormat(PyUnicode_GET_LENGTH(*joined) ? "%U %s" : "%U%s", *joined, *pair);
    Py_DECREF(*joined);
    *joined = next;
    return next != NULL;
}

/* tables(full=False): the tables; with `full`, the character classes read over every code
 * point, else over the Basic Multilingual Plane, where all of them lie (the check at each
 * import reads 65,536 code points, not 1.1 million: tests/test_cscan.py reads them all). */
static PyObject *py_tables(PyObject *self, PyObject *args)
{
    (void)self;
    int full = 0;
    if (!PyArg_ParseTuple(args, "|p", &full))
        return NULL;
    cp_t last = full ? 0x10FFFF : 0xFFFF;
    Py_UCS4 pairs[16];
    Py_ssize_t k = 0;
    for (cp_t c = 0; c <= last && k < 16; c++)
        if (opener_of(c)) {
            pairs[k++] = opener_of(c);
            pairs[k++] = c;
        }
    PyObject *pairs_joined = PyUnicode_FromString("");
    for (const char *const *pair = MARK_PAIRS; pair_joined_ok(&pairs_joined, pair); pair++)
        ;
    if (pairs_joined == NULL)
        return NULL;
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:i,s:i,s:i,s:N,s:N,s:N,s:(ssNs),s:k}", "trailing",
                         chars_where(trailing, last), "format", chars_where(format_char, last), "openers",
                         chars_where(is_opener, last), "closers", chars_where(is_closer, last), "pairs",
                         PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, pairs, k), "views", word_tuple(VIEWS), "rxiv",
                         word_tuple(RXIV), "segments", word_tuple(SEGMENTS), "media", word_tuple(MEDIA), "rules",
                         str_tuple(PY_RULES), "max_doi_chars", MAX_DOI_CHARS, "short_window", SHORT_WINDOW,
                         "left_window", LEFT_WINDOW, "forms", str_tuple(FORM_NAMES), "ported",
                         str_tuple(PORTED_RULES), "pdf_hyphens", chars_where(pdf_hyphen, last),
                         "syntax_marks", MARK_OPENS, MARK_ANYWHERE, pairs_joined, MARK_LINE_START,
                         "control_mask", (unsigned long)CONTROL_MASK);
}

static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))py_scan, METH_VARARGS | METH_KEYWORDS,
     "scan(data, lo, hi, rlo, rhi, base=0, mentions=None, hits=None, chars=False, line_base=-1, line_from=0, line_to=-1)\n"
     "-> (reported, last_end, too_long, newlines)\n"
     "Find the DOIs of UTF-8 plain text `data`; those starting in [lo, hi) and [rlo, rhi) are counted in\n"
     "`mentions` and/or appended to `hits` as (start, end, form index, doi, raw, line), offsets + base; with `chars`,\n"
     "offsets count characters of valid UTF-8 (a record's text) instead of bytes. With line_base >= 0 (the\n"
     "newlines before byte line_from), each hit's 1-based line is counted; else the line is None. With line_to >= 0\n"
     "too, `newlines` is how many newline bytes data[line_from:line_to] holds (else -1): each byte counted once."},
    {"pdf_scan", (PyCFunction)(void (*)(void))py_pdf_scan, METH_VARARGS | METH_KEYWORDS,
     "pdf_scan(data, lo, hi, rlo, rhi, base=0, mentions=None, hits=None, chars=False, line_base=-1, line_from=0,\n"
     "line_to=-1, rekey=None) -> (reported, last_end, too_long, newlines)\n"
     "scan() for text extracted from a PDF, read as find_spans(..., 'pdf') reads it: DOIs joined across line breaks,\n"
     "columns and spaces. `rekey` maps each canonical key to the key reported (pdf.rehyphenate, cached)."},
    {"html_spans", py_html_spans, METH_VARARGS,
     "html_spans(data, unescape) -> (spans, dropped, too_long)\n"
     "The DOIs of HTML given as UTF-8 bytes, read as find_spans(..., 'html') reads them: (start, end, form index, doi)\n"
     "sorted, byte offsets into the markup; (anchor, token end) of the candidates dropped as too long; and how many.\n"
     "`unescape` decodes one character reference (html.unescape)."},
    {"html_scan", (PyCFunction)(void (*)(void))py_html_scan, METH_VARARGS | METH_KEYWORDS,
     "html_scan(data, unescape, lo, hi, rlo, rhi, base=0, mentions=None, hits=None, chars=False, line_base=-1,\n"
     "line_from=0, line_to=-1) -> (reported, last_end, too_long, newlines)\n"
     "scan() for HTML: the hits of html_spans that start in [lo, hi) and [rlo, rhi), counted and/or listed as scan()\n"
     "does, their raw text the markup's."},
    {"wikitext_spans", py_wikitext_spans, METH_VARARGS, "wikitext_spans(data, unescape): html_spans for wikitext (spec §7)."},
    {"wikitext_scan", (PyCFunction)(void (*)(void))py_wikitext_scan, METH_VARARGS | METH_KEYWORDS,
     "wikitext_scan(data, unescape, lo, hi, rlo, rhi, base=0, mentions=None, hits=None, chars=False, line_base=-1,\n"
     "line_from=0, line_to=-1): html_scan for wikitext (spec §7)."},
    {"csv_spans", py_csv_spans, METH_VARARGS, "csv_spans(data, unescape): html_spans for CSV and TSV (spec §7)."},
    {"csv_scan", (PyCFunction)(void (*)(void))py_csv_scan, METH_VARARGS | METH_KEYWORDS,
     "csv_scan(data, unescape, lo, hi, rlo, rhi, ...): html_scan for CSV and TSV (spec §7)."},
    {"latex_spans", py_latex_spans, METH_VARARGS, "latex_spans(data, unescape): html_spans for LaTeX (spec §7)."},
    {"latex_scan", (PyCFunction)(void (*)(void))py_latex_scan, METH_VARARGS | METH_KEYWORDS,
     "latex_scan(data, unescape, lo, hi, rlo, rhi, ...): html_scan for LaTeX (spec §7)."},
    {"bibtex_spans", py_bibtex_spans, METH_VARARGS, "bibtex_spans(data, unescape): html_spans for BibTeX (spec §7)."},
    {"bibtex_scan", (PyCFunction)(void (*)(void))py_bibtex_scan, METH_VARARGS | METH_KEYWORDS,
     "bibtex_scan(data, unescape, lo, hi, rlo, rhi, ...): html_scan for BibTeX (spec §7)."},
    {"canonical_column", py_canonical_column, METH_VARARGS,
     "canonical_column(offsets, data, validity, offset, length, large, fallback) -> (validity, offsets, data, nulls):\n"
     "an Arrow string column's buffers to its canonical DOIs' (canonicalize element-wise; fallback decides\n"
     "the values that are not plainly one DOI)."},
    {"html_views", py_html_views, METH_VARARGS,
     "html_views(data, unescape) -> [(text, segments)] * 3: the flow, attribute and JSON views (UTF-8) with their\n"
     "segments (view start, raw start, raw length 0 when copied verbatim), as html.py builds them."},
    {"scan_texts", py_scan_texts, METH_VARARGS,
     "scan_texts(texts, start, mentions, head, sniff_kind, sniff_syntax, doc_base=0, max_rows=0) -> (next, reported,\n"
     "too_long)\n"
     "scan() of a batch of records' texts (a list of str) from texts[start] on, each counted in `mentions` as\n"
     "document doc_base + its index (set_doc), offsets in characters; it stops at the first whose first `head`\n"
     "characters may not be plain prose (with sniff_kind: what the kind's sniff reads; with sniff_syntax: what a\n"
     "syntax's sniff reads) or which holds a lone surrogate, and returns its index; or after the text that brought\n"
     "the table to max_rows rows (0: no bound)."},
    {"scan_arrow_texts", py_scan_arrow_texts, METH_VARARGS,
     "scan_arrow_texts(offsets, data, offset, length, large, start, mentions, head, sniff_kind, sniff_syntax,\n"
     "doc_base=0, max_rows=0, hits=None, ends=None) -> (next, reported, too_long): scan_texts for an Arrow string\n"
     "array's buffers (valid UTF-8, no nulls); with a list of hits, each hit listed and each text's end in ends."},
    {"set_far", py_set_far, METH_VARARGS,
     "set_far(go_far, far_anchor, glued, prefixes, ends, heads, far_chars): how PDF text is joined farther\n"
     "down and a glued page number cut (pdf.go_far_bytes, pdf.far_anchor_bytes, pdf.glued_page_end)."},
    {"newlines", py_newlines, METH_VARARGS, "newlines(data, start=0, stop=-1): how many newline bytes data[start:stop] holds."},
    {"control_bytes", py_control_bytes, METH_VARARGS, "control_bytes(data): how many control bytes (not text's) data holds."},
    {"invalid_bytes", py_invalid_bytes, METH_VARARGS,
     "invalid_bytes(data, start=0, stop=len) -> (count, next): invalid UTF-8 bytes in the characters starting in [start, stop)."},
    {"tables", py_tables, METH_VARARGS,
     "tables(full=False) -> dict: the rule tables compiled in, for the check against the Python rules."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cscan", "The plain-text, PDF-text and HTML matcher on UTF-8 bytes.", -1,
                                    methods, NULL, NULL, NULL, NULL};

/* The first rule whose hand port (ported.h: the text it was written from) differs from the rule as
 * the Python modules write it (tables.h: generated), or NULL when every port is in step. */
static const char *port_out_of_step(void)
{
    size_t i = 0;
    for (; PORTED_RULES[i] != NULL && PY_RULES[i] != NULL; i += 4)
        for (size_t k = 0; k < 4; k++)
            if (strcmp(PORTED_RULES[i + k], PY_RULES[i + k]) != 0)
                return PY_RULES[i];
    return PORTED_RULES[i] != NULL ? PORTED_RULES[i] : PY_RULES[i];
}

PyMODINIT_FUNC PyInit__cscan(void)
{
    const char *stale = port_out_of_step();
    if (stale != NULL) {
        PyErr_Format(PyExc_ImportError,
                     "_cscan: the C port of %s is out of step with the Python rule (cscan/ported.h records the text it "
                     "was written from, cscan/tables.h the rule as it is): port the change, then rebuild",
                     stale);
        return NULL;
    }
    /* the byte loops' ASCII classes are the character tests they stand for */
    for (cp_t c = 0; c < 128; c++)
        if (!(ascii_class[c] & C_RUN_END) != !run_end(c) || !(ascii_class[c] & C_STOP) != !token_stop(c) ||
            !(ascii_class[c] & C_URL_MARK) != !(c == '.' || c == '/')) {
            PyErr_Format(PyExc_ImportError, "_cscan: ascii_class disagrees with the character tests at %u", (unsigned)c);
            return NULL;
        }
    return PyModule_Create(&module);
}
