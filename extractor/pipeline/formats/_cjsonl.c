/* JSONL records read in C: a block of whole lines, each a JSON object whose text field (a
 * string) is decoded straight into one UTF-8 buffer, as an Arrow string column's, and whose id
 * field (a string, null or absent) is kept; no Python object per text, nor for the record's
 * other fields, which are only checked to be valid JSON (RFC 8259) — the values of the keys asked
 * for (provenance fields) are given as places, for Python to read. Optional: formats/jsonlines.py,
 * its only importer, reads every line in Python where it was not built.
 *
 * A line is read here only when its reading is plain: any line that is not, the reader stops
 * before, and jsonlines.py reads it as always (orjson, then the careful reading), so the two
 * readings never differ. Not plain: invalid JSON, invalid UTF-8, a lone surrogate escape, a key
 * with an escape, the text or id field or a key asked for twice, a text that is not a string, an
 * id that is not a string or null, no text field, nesting deeper than MAX_DEPTH, a text of 2 GiB. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../../match/cscan/mem.h"
#include "../../match/cscan/utf8.h"

#define MAX_DEPTH 64

/* A line being read: bytes b[i:n]. */
typedef struct {
    const unsigned char *b;
    Py_ssize_t i, n;
} Line;

/* An output buffer of UTF-8 bytes. */
typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} Out;

static inline void skip_ws(Line *p)
{
    while (p->i < p->n && (p->b[p->i] == ' ' || p->b[p->i] == '\t' || p->b[p->i] == '\r'))
        p->i++;
}

static int hex4(const unsigned char *s, cp_t *out)
{
    cp_t v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned c = s[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* The string at p->i (its opening quote), checked and, with out, decoded into it: 1, or 0 when
 * it is not plain (invalid, a lone surrogate); -1 with MemoryError set. *escaped says whether it
 * held an escape. */
static int read_string(Line *p, Out *out, int *escaped)
{
    const unsigned char *b = p->b;
    Py_ssize_t i = p->i + 1, n = p->n;
    *escaped = 0;
    if (out != NULL && arena_room(&out->buf, out->len, &out->cap, n - i) < 0)
        return -1; /* a string decodes to at most its own bytes */
    char *o = out != NULL ? out->buf + out->len : NULL;
    for (;;) {
        Py_ssize_t run = i;
#ifdef __SSE2__
        /* 16 bytes at a time while none is a quote, a backslash, a control or non-ASCII byte */
        const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), sp = _mm_set1_epi8(0x20);
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(b + i));
            int m = _mm_movemask_epi8(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)), _mm_cmplt_epi8(v, sp)));
            if (m)
                break;
            i += 16;
        }
#endif
        while (i < n && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '"' && b[i] != '\\')
            i++;
        if (o != NULL && i > run) {
            memcpy(o, b + run, (size_t)(i - run));
            o += i - run;
        }
        if (i >= n)
            return 0; /* no closing quote on the line */
        unsigned c = b[i];
        if (c == '"') {
            if (out != NULL)
                out->len = o - out->buf;
            p->i = i + 1;
            return 1;
        }
        if (c < 0x20)
            return 0; /* a control character unescaped */
        if (c >= 0x80) {
            cp_t cp;
            int k = dec(b, n, i, &cp);
            if (k == 1)
                return 0; /* invalid UTF-8 */
            if (o != NULL) {
                memcpy(o, b + i, (size_t)k);
                o += k;
            }
            i += k;
            continue;
        }
        /* a backslash */
        *escaped = 1;
        if (i + 1 >= n)
            return 0;
        unsigned e = b[i + 1];
        char plain = 0;
        switch (e) {
        case '"': plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/': plain = '/'; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u': break;
        default: return 0;
        }
        if (e != 'u') {
            if (o != NULL)
                *o++ = plain;
            i += 2;
            continue;
        }
        cp_t cp;
        if (i + 6 > n || hex4(b + i + 2, &cp) < 0)
            return 0;
        i += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return 0; /* a low surrogate alone */
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            cp_t lo;
            if (i + 6 > n || b[i] != '\\' || b[i + 1] != 'u' || hex4(b + i + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
                return 0; /* a high surrogate alone */
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        }
        if (o != NULL)
            o += utf8_encode(&cp, 1, o); /* 6 or 12 escape bytes give at most 4 */
    }
}

/* A JSON number at p->i: 1, or 0 when there is none. */
static int read_number(Line *p)
{
    const unsigned char *b = p->b;
    Py_ssize_t i = p->i, n = p->n;
    if (i < n && b[i] == '-')
        i++;
    if (i >= n || b[i] < '0' || b[i] > '9')
        return 0;
    if (b[i] == '0')
        i++;
    else
        while (i < n && b[i] >= '0' && b[i] <= '9')
            i++;
    if (i < n && b[i] == '.') {
        if (++i >= n || b[i] < '0' || b[i] > '9')
            return 0;
        while (i < n && b[i] >= '0' && b[i] <= '9')
            i++;
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
        i++;
        if (i < n && (b[i] == '+' || b[i] == '-'))
            i++;
        if (i >= n || b[i] < '0' || b[i] > '9')
            return 0;
        while (i < n && b[i] >= '0' && b[i] <= '9')
            i++;
    }
    p->i = i;
    return 1;
}

static int read_word(Line *p, const char *w, Py_ssize_t len)
{
    if (p->n - p->i < len || memcmp(p->b + p->i, w, (size_t)len) != 0)
        return 0;
    p->i += len;
    return 1;
}

/* Any JSON value at p->i, checked and passed over: 1, or 0 when it is not plain. */
static int skip_value(Line *p, int depth)
{
    int escaped;
    if (p->i >= p->n)
        return 0;
    unsigned c = p->b[p->i];
    if (c == '"')
        return read_string(p, NULL, &escaped);
    if (c == '{' || c == '[') {
        unsigned close = c == '{' ? '}' : ']';
        if (depth >= MAX_DEPTH)
            return 0;
        p->i++;
        skip_ws(p);
        if (p->i < p->n && p->b[p->i] == close) {
            p->i++;
            return 1;
        }
        for (;;) {
            if (c == '{') {
                if (p->i >= p->n || p->b[p->i] != '"' || read_string(p, NULL, &escaped) != 1)
                    return 0;
                skip_ws(p);
                if (p->i >= p->n || p->b[p->i] != ':')
                    return 0;
                p->i++;
                skip_ws(p);
            }
            if (skip_value(p, depth + 1) != 1)
                return 0;
            skip_ws(p);
            if (p->i >= p->n)
                return 0;
            if (p->b[p->i] == close) {
                p->i++;
                return 1;
            }
            if (p->b[p->i] != ',')
                return 0;
            p->i++;
            skip_ws(p);
        }
    }
    if (c == 't')
        return read_word(p, "true", 4);
    if (c == 'f')
        return read_word(p, "false", 5);
    if (c == 'n')
        return read_word(p, "null", 4);
    return read_number(p);
}

/* What one line is: */
enum { NOT_PLAIN = 0, RECORD = 1, BLANK = 2 };

/* Top-level keys whose values' places a record's reading gives (provenance fields, read by
 * Python from those bytes). */
typedef struct {
    const char *const *key;
    const Py_ssize_t *len;
    Py_ssize_t n;
} Keys;

/* One line, b[0:n] without its newline: a record (its text appended to `texts`, its id to `ids`
 * or *has_id 0, where each of `keys` has its value: span[2k], span[2k + 1], -1 where absent), a
 * blank line, or a line left to Python; -1 with an exception set. */
static int read_line(const unsigned char *b, Py_ssize_t n, const char *tkey, Py_ssize_t tlen, const char *ikey,
                     Py_ssize_t ilen, const Keys *keys, Py_ssize_t *span, Out *texts, Out *ids, int *has_id)
{
    for (Py_ssize_t k = 0; k < 2 * keys->n; k++)
        span[k] = -1;
    Py_ssize_t j = 0;
    while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\x0b' || b[j] == '\x0c'))
        j++;
    if (j == n)
        return BLANK; /* as bytes.strip() finds it */
    Line p = {b, 0, n};
    skip_ws(&p);
    if (p.i >= n || b[p.i] != '{')
        return NOT_PLAIN;
    p.i++;
    skip_ws(&p);
    Py_ssize_t text_at = texts->len, id_at = ids->len;
    int seen_text = 0, seen_id = 0, escaped, rc;
    *has_id = 0;
    if (p.i < n && b[p.i] == '}') {
        p.i++;
    } else {
        for (;;) {
            if (p.i >= n || b[p.i] != '"')
                goto not_plain;
            Py_ssize_t k0 = p.i + 1;
            if (read_string(&p, NULL, &escaped) != 1 || escaped)
                goto not_plain; /* a key with an escape may spell either field's name */
            Py_ssize_t klen = p.i - 1 - k0;
            int is_text = klen == tlen && memcmp(b + k0, tkey, (size_t)tlen) == 0;
            int is_id = klen == ilen && memcmp(b + k0, ikey, (size_t)ilen) == 0;
            skip_ws(&p);
            if (p.i >= n || b[p.i] != ':')
                goto not_plain;
            p.i++;
            skip_ws(&p);
            if (is_text) {
                if (seen_text++ || p.i >= n || b[p.i] != '"')
                    goto not_plain;
                if ((rc = read_string(&p, texts, &escaped)) != 1)
                    goto failed;
            } else if (is_id) {
                if (seen_id++ || p.i >= n)
                    goto not_plain;
                if (b[p.i] == '"') {
                    if ((rc = read_string(&p, ids, &escaped)) != 1)
                        goto failed;
                    *has_id = 1;
                } else if (!read_word(&p, "null", 4)) {
                    goto not_plain; /* a number or other id: Python names it */
                }
            } else {
                Py_ssize_t k = 0, at = p.i;
                while (k < keys->n && !(klen == keys->len[k] && memcmp(b + k0, keys->key[k], (size_t)klen) == 0))
                    k++;
                if (k < keys->n && span[2 * k] >= 0)
                    goto not_plain; /* a field twice: the last wins in Python */
                if (skip_value(&p, 1) != 1)
                    goto not_plain;
                if (k < keys->n)
                    span[2 * k] = at, span[2 * k + 1] = p.i;
            }
            skip_ws(&p);
            if (p.i < n && b[p.i] == ',') {
                p.i++;
                skip_ws(&p);
                continue;
            }
            if (p.i < n && b[p.i] == '}') {
                p.i++;
                break;
            }
            goto not_plain;
        }
    }
    skip_ws(&p);
    if (p.i != n || !seen_text || texts->len - text_at > INT32_MAX)
        goto not_plain;
    return RECORD;
failed:
    if (rc < 0)
        return -1;
not_plain:
    texts->len = text_at;
    ids->len = id_at;
    *has_id = 0;
    return NOT_PLAIN;
}

/* read_lines(data, pos, text_key, id_key, keys=()) -> (pos, lines, text_offsets, text_data, ids, record_lines,
 * spans) */
static PyObject *py_read_lines(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer view;
    Py_ssize_t pos, tlen, ilen;
    const char *tkey, *ikey;
    PyObject *key_tuple = NULL;
    if (!PyArg_ParseTuple(args, "y*ny#y#|O!", &view, &pos, &tkey, &tlen, &ikey, &ilen, &PyTuple_Type, &key_tuple))
        return NULL;
    const unsigned char *b = view.buf;
    Py_ssize_t n = view.len, lines = 0, records = 0, ocap = 0, nkeys = key_tuple == NULL ? 0 : PyTuple_GET_SIZE(key_tuple);
    Out texts = {NULL, 0, 0}, ids = {NULL, 0, 0};
    int32_t *offs = NULL;
    const char **kp = NULL;
    Py_ssize_t *kl = NULL, *span = NULL;
    PyObject *id_list = PyList_New(0), *line_list = PyList_New(0), *span_list = PyList_New(0), *out = NULL;
    if (id_list == NULL || line_list == NULL || span_list == NULL)
        goto done;
    if (pos < 0 || pos > n) {
        PyErr_SetString(PyExc_ValueError, "pos lies outside the data");
        goto done;
    }
    if (grow((void **)&offs, ocap = 256, sizeof(int32_t)) < 0 || grow((void **)&kp, nkeys + 1, sizeof(char *)) < 0 ||
        grow((void **)&kl, nkeys + 1, sizeof(Py_ssize_t)) < 0 || grow((void **)&span, 2 * nkeys + 1, sizeof(Py_ssize_t)) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nkeys; k++) {
        char *kb;
        if (PyBytes_AsStringAndSize(PyTuple_GET_ITEM(key_tuple, k), &kb, &kl[k]) < 0)
            goto done;
        kp[k] = kb;
    }
    Keys keys = {kp, kl, nkeys};
    offs[0] = 0;
    while (pos < n) {
        const unsigned char *nl = memchr(b + pos, '\n', (size_t)(n - pos));
        Py_ssize_t end = nl == NULL ? n : nl - b;
        Py_ssize_t id_at = ids.len;
        int has_id;
        int what = read_line(b + pos, end - pos, tkey, tlen, ikey, ilen, &keys, span, &texts, &ids, &has_id);
        if (what < 0)
            goto done;
        if (what == NOT_PLAIN)
            break;
        if (what == RECORD) {
            if (texts.len > INT32_MAX) {
                texts.len = (Py_ssize_t)offs[records];
                ids.len = id_at;
                break; /* the column is full: the next call starts another */
            }
            if (records + 2 > ocap && grow((void **)&offs, ocap *= 2, sizeof(int32_t)) < 0)
                goto done;
            offs[++records] = (int32_t)texts.len;
            PyObject *rid = has_id ? PyUnicode_DecodeUTF8(ids.buf + id_at, ids.len - id_at, "strict") : Py_NewRef(Py_None);
            PyObject *ln = PyLong_FromSsize_t(lines);
            ids.len = id_at;
            int bad = rid == NULL || ln == NULL || PyList_Append(id_list, rid) < 0 || PyList_Append(line_list, ln) < 0;
            Py_XDECREF(rid);
            Py_XDECREF(ln);
            for (Py_ssize_t k = 0; !bad && k < 2 * nkeys; k++) {
                PyObject *v = PyLong_FromSsize_t(span[k] < 0 ? -1 : pos + span[k]);
                bad = v == NULL || PyList_Append(span_list, v) < 0;
                Py_XDECREF(v);
            }
            if (bad)
                goto done;
        }
        lines++;
        pos = nl == NULL ? n : end + 1;
    }
    out = Py_BuildValue("(nny#y#OOO)", pos, lines, (const char *)offs, (Py_ssize_t)(4 * (records + 1)),
                        texts.buf == NULL ? "" : texts.buf, texts.len, id_list, line_list, span_list);
done:
    PyBuffer_Release(&view);
    PyMem_Free(offs);
    PyMem_Free(kp);
    PyMem_Free(kl);
    PyMem_Free(span);
    PyMem_Free(texts.buf);
    PyMem_Free(ids.buf);
    Py_XDECREF(id_list);
    Py_XDECREF(line_list);
    Py_XDECREF(span_list);
    return out;
}

static PyMethodDef methods[] = {
    {"read_lines", py_read_lines, METH_VARARGS,
     "read_lines(data, pos, text_key, id_key, keys=()) -> (pos, lines, text_offsets, text_data, ids, record_lines, "
     "spans): the lines of data from pos read while each is a blank line or a plain record; pos is where the "
     "first line left to Python starts (or len(data)), lines how many were read, the texts an Arrow string "
     "column's int32 offsets and UTF-8 data, with each record's id (None where it has none), line (from 0), "
     "and for each of the top-level keys the start and end in data of its value (-1, -1 where absent)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cjsonl", "JSONL records' text and id fields read in C.", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cjsonl(void) { return PyModule_Create(&module); }
