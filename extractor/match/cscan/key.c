/* ---- canonical key (canonical.canonical_key) ----------------------------------------------- */

/* Format characters dropped, %XX runs decoded once as UTF-8 (an escape that is not valid UTF-8
 * or decodes to a control stays), A–Z folded. Writes to out, returns the length. */
static Py_ssize_t canonical_in(const cp_t *s, Py_ssize_t n, cp_t *out, cp_t *t, unsigned char *bytes)
{
    Py_ssize_t m = 0, o = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!format_char(s[i]))
            t[m++] = s[i];
    for (Py_ssize_t i = 0; i < m;) {
        if (t[i] == '%' && i + 2 < m && hexd(t[i + 1]) && hexd(t[i + 2])) {
            Py_ssize_t j = i;
            Py_ssize_t nb = 0;
            while (j + 2 < m && t[j] == '%' && hexd(t[j + 1]) && hexd(t[j + 2])) {
                bytes[nb++] = (unsigned char)(hexv(t[j + 1]) * 16 + hexv(t[j + 2]));
                j += 3;
            }
            for (Py_ssize_t k = 0; k < nb;) {
                int L = utf8_len(bytes[k]);
                cp_t c = 0;
                int ok = L && k + L <= nb && dec(bytes, k + L, k, &c) == L;
                if (ok && (c < 0x20 || (c >= 0x7F && c <= 0x9F)))
                    ok = 0;
                if (ok) {
                    out[o++] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
                    k += L;
                } else {
                    Py_ssize_t e = i + 3 * k;
                    out[o++] = '%';
                    out[o++] = (t[e + 1] >= 'A' && t[e + 1] <= 'Z') ? t[e + 1] + 32 : t[e + 1];
                    out[o++] = (t[e + 2] >= 'A' && t[e + 2] <= 'Z') ? t[e + 2] + 32 : t[e + 2];
                    k += 1;
                }
            }
            i = j;
        } else {
            cp_t c = t[i++];
            out[o++] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
        }
    }
    return o;
}

/* canonical_in with its work buffers on the stack: names of at most MAX_LOGICAL characters. */
static Py_ssize_t canonical(const cp_t *s, Py_ssize_t n, cp_t *out)
{
    cp_t t[MAX_LOGICAL + 8];
    unsigned char bytes[MAX_LOGICAL / 3 + 4];
    return canonical_in(s, n, out, t, bytes);
}

/* The text of b[s:e], invalid bytes as U+FFFD. */
static PyObject *raw_of(const Buf *B, Py_ssize_t s, Py_ssize_t e)
{
    int ascii = 1;
    for (Py_ssize_t i = s; i < e; i++)
        if (B->b[i] >= 0x80) {
            ascii = 0;
            break;
        }
    if (ascii)
        return PyUnicode_FromStringAndSize((const char *)B->b + s, e - s);
    cp_t *tmp = PyMem_Malloc(sizeof(cp_t) * (size_t)(e - s + 1));
    if (tmp == NULL)
        return PyErr_NoMemory();
    Py_ssize_t n = 0;
    for (Py_ssize_t i = s; i < e;)
        i += dec(B->b, e, i, &tmp[n++]);
    PyObject *u = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, tmp, n);
    PyMem_Free(tmp);
    return u;
}

/* A hit's raw text B[s:e], sharing the DOI's own str when it is the key's bytes (a bare DOI
 * written in lower case): one str less per hit where every few bytes are a new DOI. */
static PyObject *raw_or_doi(const Buf *B, Py_ssize_t s, Py_ssize_t e, const char *key, Py_ssize_t klen, PyObject *doi)
{
    if (e - s == klen && memcmp(B->b + s, key, (size_t)klen) == 0)
        return Py_NewRef(doi);
    return raw_of(B, s, e);
}
