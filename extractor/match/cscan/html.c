/* ---- HTML views (spec §3, §5): match/html.py's html_views on UTF-8 bytes ------------------------
 *
 * The same three views — the text flow (entities decoded, inline tags transparent, other tags a
 * line break), the attribute values that may hold a DOI, the JSON of JSON `<script>` elements
 * (string escapes decoded) — built in one pass over the bytes with the same tag, attribute,
 * comment and raw-text rules, each with its map from view bytes to raw bytes. Character
 * references are decoded by the Python function given (html.unescape: its table of 2,231 names
 * and its numeric rules stay the one source); JSON escapes here, as jsonstr.unescape does.
 * The views are then searched by scan() (plain rules, as matcher.py searches them) and each hit
 * mapped back to the markup. tests/test_cscan.py checks the result against find_spans(…, "html").
 */

typedef struct {
    unsigned char *t; /* the view's text */
    Py_ssize_t tn, tcap;
    Py_ssize_t *seg; /* per segment: view start, raw start, raw length (0: copied verbatim) */
    Py_ssize_t sn, scap;
    Links links; /* the links read into it (links.c), raw offsets */
} HView;

static void hv_free(HView *v)
{
    PyMem_Free(v->t);
    PyMem_Free(v->seg);
    links_free(&v->links);
    v->t = NULL;
    v->seg = NULL;
}

/* The bytes of a piece just put into a view: each byte that is not part of a valid character
 * made 0xFF, which reads as U+FFFD alone. Two invalid bytes on either side of a tag must not
 * join into one character in the view (`\xc3<a>\x81` is two U+FFFD, as the document decoded
 * whole has them, not an Á). */
static void hv_invalid(unsigned char *t, Py_ssize_t len)
{
    Py_ssize_t i = 0;
    while (i < len) {
#ifdef __SSE2__
        /* ASCII 16 bytes at a time: most of a view is */
        while (i + 16 <= len && _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(t + i))) == 0)
            i += 16;
        if (i >= len)
            break;
#endif
        if (t[i] < 0x80) {
            i++;
            continue;
        }
        cp_t c;
        int k = dec(t, len, i, &c);
        if (k == 1)
            t[i] = 0xFF;
        i += k;
    }
}

static int hv_seg(HView *v, const unsigned char *s, Py_ssize_t len, Py_ssize_t rpos, Py_ssize_t rlen)
{
    if (v->tn + len > v->tcap) {
        Py_ssize_t cap = (v->tcap + len) * 2 + 256;
        unsigned char *t = PyMem_Realloc(v->t, (size_t)cap);
        if (t == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        v->t = t;
        v->tcap = cap;
    }
    if (rlen == 0 && v->sn > 0 && v->seg[3 * v->sn - 1] == 0 && v->seg[3 * v->sn - 2] + (v->tn - v->seg[3 * v->sn - 3]) == rpos) {
        /* a verbatim piece right after the raw bytes of the one before: the same segment (the
         * map is the same; a page of tiny pieces keeps a few segments, not one per piece) */
        if (len > 0) /* s may be NULL for an empty piece: memcpy's arguments must not be */
            memcpy(v->t + v->tn, s, (size_t)len);
        hv_invalid(v->t + v->tn, len);
        v->tn += len;
        return 0;
    }
    if (v->sn + 1 > v->scap) {
        Py_ssize_t cap = v->scap * 2 + 64;
        Py_ssize_t *g = PyMem_Realloc(v->seg, (size_t)cap * 3 * sizeof(Py_ssize_t));
        if (g == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        v->seg = g;
        v->scap = cap;
    }
    v->seg[3 * v->sn] = v->tn;
    v->seg[3 * v->sn + 1] = rpos;
    v->seg[3 * v->sn + 2] = rlen;
    v->sn++;
    if (len > 0)
        memcpy(v->t + v->tn, s, (size_t)len);
    hv_invalid(v->t + v->tn, len);
    v->tn += len;
    return 0;
}

/* View.linear: text copied verbatim (nothing for an empty piece). */
static inline int hv_linear(HView *v, const unsigned char *s, Py_ssize_t len, Py_ssize_t rpos)
{
    return len > 0 ? hv_seg(v, s, len, rpos, 0) : 0;
}

/* The segment holding view byte x: bisect_right(vpos, x) - 1, as View.to_raw finds it. */
static Py_ssize_t hv_segment(const HView *v, Py_ssize_t x)
{
    Py_ssize_t lo = 0, hi = v->sn;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (x < v->seg[3 * mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo - 1;
}

/* View.to_raw: the raw span of view bytes [start, end). */
static void hv_to_raw(const HView *v, Py_ssize_t start, Py_ssize_t end, Py_ssize_t *rs, Py_ssize_t *re)
{
    Py_ssize_t i = hv_segment(v, start), j = hv_segment(v, end - 1);
    *rs = v->seg[3 * i + 1] + (v->seg[3 * i + 2] ? 0 : start - v->seg[3 * i]);
    *re = v->seg[3 * j + 1] + (v->seg[3 * j + 2] ? v->seg[3 * j + 2] : end - v->seg[3 * j]);
}

/* ASCII whitespace, as \s reads with re.ASCII (html.py's attribute and tag patterns) */
static inline int ws(unsigned c) { return c == ' ' || (c >= 9 && c <= 13); }
static inline int wordc(unsigned c) { return ascii_alpha(c) || is_digit(c) || c == '_'; }

/* The length of html.py's _ENTITY at b[i] == '&', or 0:
 * &(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?) */
static Py_ssize_t entity_len(const unsigned char *b, Py_ssize_t i, Py_ssize_t n)
{
    Py_ssize_t j = i + 1, d = 0;
    if (j < n && b[j] == '#') {
        j++;
        while (j < n && d < 7 && is_digit(b[j]))
            j++, d++;
        if (d == 0 && j < n && (b[j] == 'x' || b[j] == 'X')) {
            j++;
            while (j < n && d < 6 && hexd(b[j]))
                j++, d++;
        }
    } else if (j < n && ascii_alpha(b[j])) {
        j++;
        while (j < n && d < 31 && (ascii_alpha(b[j]) || is_digit(b[j])))
            j++, d++;
    }
    if (d == 0)
        return 0;
    if (j < n && b[j] == ';')
        j++;
    return j - i;
}

static int quick_reference(const unsigned char *b, Py_ssize_t m, char *out);

/* add_text: text with character references decoded by `unescape` (html.unescape). */
static int hv_text(HView *v, const unsigned char *b, Py_ssize_t a, Py_ssize_t z, PyObject *unescape)
{
    const unsigned char *amp = memchr(b + a, '&', (size_t)(z - a));
    if (amp == NULL)
        return hv_linear(v, b + a, z - a, a);
    Py_ssize_t pos = a, i = amp - b;
    while (i < z) {
        if (b[i] != '&') {
            const unsigned char *next = memchr(b + i, '&', (size_t)(z - i));
            if (next == NULL)
                break;
            i = next - b;
        }
        Py_ssize_t m = entity_len(b, i, z);
        if (m == 0) {
            i++;
            continue;
        }
        char quick;
        if (quick_reference(b + i, m, &quick)) {
            if (hv_linear(v, b + pos, i - pos, pos) < 0 || hv_seg(v, (const unsigned char *)&quick, 1, i, m) < 0)
                return -1;
            i += m;
            pos = i;
            continue;
        }
        PyObject *src = PyUnicode_DecodeASCII((const char *)b + i, m, "strict");
        PyObject *rep = src == NULL ? NULL : PyObject_CallOneArg(unescape, src);
        Py_XDECREF(src);
        if (rep == NULL)
            return -1;
        Py_ssize_t rn;
        const char *r = PyUnicode_Check(rep) ? PyUnicode_AsUTF8AndSize(rep, &rn) : NULL;
        if (r == NULL) {
            Py_DECREF(rep);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "unescape must return a str");
            return -1;
        }
        int same = rn == m && memcmp(r, b + i, (size_t)m) == 0;
        int rc = same ? 0 : hv_linear(v, b + pos, i - pos, pos);
        if (rc == 0 && !same)
            rc = hv_seg(v, (const unsigned char *)r, rn, i, m);
        Py_DECREF(rep);
        if (rc < 0)
            return -1;
        i += m;
        if (!same)
            pos = i;
    }
    return hv_linear(v, b + pos, z - pos, pos);
}

/* jsonstr.ESCAPE at b[i] == '\\': a surrogate pair, \uXXXX, or a short escape; its length or 0. */
static Py_ssize_t json_escape(const unsigned char *b, Py_ssize_t i, Py_ssize_t n, cp_t *out)
{
    if (i + 1 >= n)
        return 0;
    unsigned c = b[i + 1];
    if (c == 'u') {
        if (i + 6 > n || !hexd(b[i + 2]) || !hexd(b[i + 3]) || !hexd(b[i + 4]) || !hexd(b[i + 5]))
            return 0;
        cp_t code = 0;
        for (int t = 2; t < 6; t++)
            code = code * 16 + (cp_t)hexv(b[i + t]);
        if (code >= 0xD800 && code < 0xDC00 && i + 12 <= n && b[i + 6] == '\\' && b[i + 7] == 'u' &&
            (b[i + 8] | 0x20) == 'd' && (b[i + 9] | 0x20) >= 'c' && (b[i + 9] | 0x20) <= 'f' && hexd(b[i + 10]) &&
            hexd(b[i + 11])) {
            cp_t low = 0;
            for (int t = 8; t < 12; t++)
                low = low * 16 + (cp_t)hexv(b[i + t]);
            *out = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            return 12;
        }
        *out = (code >= 0xD800 && code < 0xE000) ? 0xFFFD : code;
        return 6;
    }
    const char *from = "/\\\"bfnrt", *to = "/\\\"\b\f\n\r\t";
    const char *at = c ? strchr(from, (int)c) : NULL;
    if (at == NULL)
        return 0;
    *out = (cp_t)(unsigned char)to[at - from];
    return 2;
}

/* add_json: JSON text with its string escapes decoded. */
static int hv_json(HView *v, const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    Py_ssize_t pos = a, i = a;
    for (;;) {
        const unsigned char *bs = i < z ? memchr(b + i, '\\', (size_t)(z - i)) : NULL;
        if (bs == NULL)
            break;
        i = bs - b;
        cp_t c;
        Py_ssize_t m = json_escape(b, i, z, &c);
        if (m == 0) {
            i++;
            continue;
        }
        char u[4];
        Py_ssize_t un = utf8_encode(&c, 1, u);
        if (hv_linear(v, b + pos, i - pos, pos) < 0 || hv_seg(v, (const unsigned char *)u, un, i, m) < 0)
            return -1;
        i += m;
        pos = i;
    }
    return hv_linear(v, b + pos, z - pos, pos);
}

/* Characters in b[a:z), each invalid byte one (as the text the Python views are built on). */
static Py_ssize_t count_chars(const unsigned char *b, Py_ssize_t n, Py_ssize_t a, Py_ssize_t z)
{
    Py_ssize_t c = 0;
    cp_t cp;
    while (a < z) {
        a += dec(b, n, a, &cp);
        c++;
    }
    return c;
}

static Py_ssize_t find_byte(const unsigned char *b, Py_ssize_t from, Py_ssize_t n, unsigned char c)
{
    const unsigned char *p = from < n ? memchr(b + from, c, (size_t)(n - from)) : NULL;
    return p == NULL ? -1 : p - b;
}

static Py_ssize_t find_str(const unsigned char *b, Py_ssize_t from, Py_ssize_t n, const char *s)
{
    Py_ssize_t sl = (Py_ssize_t)strlen(s);
    while (from + sl <= n) {
        Py_ssize_t p = find_byte(b, from, n, (unsigned char)s[0]);
        if (p < 0 || p + sl > n)
            return -1;
        if (memcmp(b + p, s, (size_t)sl) == 0)
            return p;
        from = p + 1;
    }
    return -1;
}

/* The double and the single quotes of b[a:z), in one pass (a tag's, for every tag of a page). */
static void count_quotes(const unsigned char *b, Py_ssize_t a, Py_ssize_t z, Py_ssize_t *dq, Py_ssize_t *sq)
{
    Py_ssize_t d = 0, s = 0;
    for (; a < z; a++) {
        d += b[a] == '"';
        s += b[a] == '\'';
    }
    *dq = d, *sq = s;
}


/* html.py's _TAG matched at b[lt] == '<' with the match ending by `stop` (its endpos):
 * <(/?)([A-Za-z][A-Za-z0-9:_-]{0,63})((?:[^>"']|"[^"]*"|'[^']*')*)> — the end of the match, or -1;
 * *name_end is where the name ends (the attribute text runs from there to the end - 1). */
static Py_ssize_t tag_match(const unsigned char *b, Py_ssize_t lt, Py_ssize_t stop, Py_ssize_t *name_end)
{
    Py_ssize_t i = lt + 1;
    if (i < stop && b[i] == '/')
        i++;
    if (i >= stop || !ascii_alpha(b[i]))
        return -1;
    Py_ssize_t k = 1;
    i++;
    while (i < stop && k < 64 && (ascii_alpha(b[i]) || is_digit(b[i]) || b[i] == ':' || b[i] == '_' || b[i] == '-'))
        i++, k++;
    *name_end = i;
    while (i < stop) {
        unsigned c = b[i];
        if (c == '>')
            return i + 1;
        if (c == '"' || c == '\'') {
            const unsigned char *q = i + 1 < stop ? memchr(b + i + 1, (int)c, (size_t)(stop - i - 1)) : NULL;
            if (q == NULL)
                return -1;
            i = q - b + 1;
            continue;
        }
        i++;
    }
    return -1;
}

/* A lower-case tag name lower[0:n) against a name, in byte order: <0, 0 or >0 (names are short:
 * compared in place, no strlen and memcmp per tag). */
static int name_cmp(const char *lower, Py_ssize_t n, const char *name)
{
    Py_ssize_t k = 0;
    for (; k < n && name[k]; k++)
        if (lower[k] != name[k])
            return (unsigned char)lower[k] < (unsigned char)name[k] ? -1 : 1;
    return k < n ? 1 : name[k] ? -1 : 0;
}

static int name_is(const char *lower, Py_ssize_t n, const char *name)
{
    return name_cmp(lower, n, name) == 0;
}

/* Whether a lower-case tag name is of html.INLINE_TAGS: a binary search, INLINE_NAMES being
 * sorted (ctables.py writes it so; a tag is looked up for every tag of a page). */
static int is_inline(const char *lower, Py_ssize_t n)
{
    Py_ssize_t lo = 0, hi = (Py_ssize_t)(sizeof(INLINE_NAMES) / sizeof(INLINE_NAMES[0])) - 1;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        int c = name_cmp(lower, n, INLINE_NAMES[mid]);
        if (c == 0)
            return 1;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* html.unescape's result for the references pages are full of, without asking it: the four
 * named ones with their semicolon, and numeric ones of printable ASCII (chr(n) there, WHATWG
 * HTML §13.2.5.80); 0 for any other (then it is asked). */
static int quick_reference(const unsigned char *b, Py_ssize_t m, char *out)
{
    if (m == 5 && memcmp(b, "&amp;", 5) == 0)
        return *out = '&', 1;
    if (m == 4 && memcmp(b, "&lt;", 4) == 0)
        return *out = '<', 1;
    if (m == 4 && memcmp(b, "&gt;", 4) == 0)
        return *out = '>', 1;
    if (m == 6 && memcmp(b, "&quot;", 6) == 0)
        return *out = '"', 1;
    if (m >= 4 && b[1] == '#' && b[m - 1] == ';') {
        int hex = b[2] == 'x' || b[2] == 'X';
        long v = 0;
        for (Py_ssize_t i = 2 + hex; i < m - 1; i++) {
            v = v * (hex ? 16 : 10) + hexv(b[i]);
            if (v > 0x7E)
                return 0;
        }
        if (v >= 0x20)
            return *out = (char)v, 1;
    }
    return 0;
}

/* _ATTRS_MAY_HOLD: 10[./]|[&%]|[Rr][Gg]/ */
static int attrs_may_hold(const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    for (Py_ssize_t i = a; i < z; i++) {
        unsigned c = b[i];
        if (c == '&' || c == '%')
            return 1;
        if (c == '1' && i + 2 < z && b[i + 1] == '0' && (b[i + 2] == '.' || b[i + 2] == '/'))
            return 1;
        if ((c | 0x20) == 'r' && i + 2 < z && (b[i + 1] | 0x20) == 'g' && b[i + 2] == '/')
            return 1;
    }
    return 0;
}

/* A value worth a line of the attribute view: it holds "10" or a shortDOI resolver's rg/. */
static int value_may_hold(const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    for (Py_ssize_t i = a; i + 1 < z; i++) {
        if (b[i] == '1' && b[i + 1] == '0')
            return 1;
        if ((b[i] | 0x20) == 'r' && i + 2 < z && (b[i + 1] | 0x20) == 'g' && b[i + 2] == '/')
            return 1;
    }
    return 0;
}

/* html._ATTR's next match in b[*i:z): ([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?
 * — the name [*ns, *ne) and the value [*vs, *ve), *vs -1 when the name alone matched; *i moves
 * past the match. Returns 0 when none is left. */
static int next_attr(const unsigned char *b, Py_ssize_t *i, Py_ssize_t z, Py_ssize_t *ns, Py_ssize_t *ne, Py_ssize_t *vs,
                     Py_ssize_t *ve)
{
#define ATTR_STOP(c) (ws(c) || (c) == '=' || (c) == '/' || (c) == '>' || (c) == '"' || (c) == '\'')
    Py_ssize_t k = *i;
    while (k < z && ATTR_STOP(b[k]))
        k++;
    if (k >= z) {
        *i = k;
        return 0;
    }
    *ns = k;
    while (k < z && !ATTR_STOP(b[k]))
        k++;
#undef ATTR_STOP
    *ne = *i = k;
    *vs = *ve = -1;
    while (k < z && ws(b[k]))
        k++;
    if (k >= z || b[k] != '=')
        return 1;
    k++;
    while (k < z && ws(b[k]))
        k++;
    if (k < z && (b[k] == '"' || b[k] == '\'')) {
        const unsigned char *q = k + 1 < z ? memchr(b + k + 1, b[k], (size_t)(z - k - 1)) : NULL;
        if (q != NULL)
            *vs = k + 1, *ve = q - b, *i = q - b + 1;
    } else {
        Py_ssize_t q = k;
        while (q < z && !(ws(b[q]) || b[q] == '>' || b[q] == '"' || b[q] == '\''))
            q++;
        if (q > k)
            *vs = k, *ve = q, *i = q;
    }
    return 1;
}

/* _add_attributes: each attribute value of b[a:z) that may hold a DOI, a line of the view. */
static int hv_attributes(HView *v, const unsigned char *b, Py_ssize_t a, Py_ssize_t z, PyObject *unescape)
{
    if (!attrs_may_hold(b, a, z))
        return 0;
    Py_ssize_t i = a, ns, ne, vs, ve;
    while (next_attr(b, &i, z, &ns, &ne, &vs, &ve))
        if (vs >= 0 && value_may_hold(b, vs, ve)) {
            if (hv_text(v, b, vs, ve, unescape) < 0 || hv_seg(v, (const unsigned char *)"\n", 1, ve, 0) < 0)
                return -1;
        }
    return 0;
}

/* html._href: the raw span [*vs, *ve) of the first `href` or `xlink:href` attribute's value in
 * b[a:z), read as next_attr reads attributes; 0 when there is none, or it has no value. */
static int href_value(const unsigned char *b, Py_ssize_t a, Py_ssize_t z, Py_ssize_t *vs, Py_ssize_t *ve)
{
    int any = 0;
    for (Py_ssize_t i = a; !any && i + 4 <= z; i++)
        any = (b[i] | 0x20) == 'h' && (b[i + 1] | 0x20) == 'r' && (b[i + 2] | 0x20) == 'e' && (b[i + 3] | 0x20) == 'f';
    if (!any)
        return 0;
    Py_ssize_t i = a, ns, ne;
    while (next_attr(b, &i, z, &ns, &ne, vs, ve)) {
        Py_ssize_t len = ne - ns, at = len == 10 ? ns + 6 : ns;
        if (len != 4 && len != 10)
            continue;
        if (len == 10 && !((b[ns] | 0x20) == 'x' && (b[ns + 1] | 0x20) == 'l' && (b[ns + 2] | 0x20) == 'i' &&
                           (b[ns + 3] | 0x20) == 'n' && (b[ns + 4] | 0x20) == 'k' && b[ns + 5] == ':'))
            continue;
        if ((b[at] | 0x20) == 'h' && (b[at + 1] | 0x20) == 'r' && (b[at + 2] | 0x20) == 'e' && (b[at + 3] | 0x20) == 'f')
            return *vs >= 0;
    }
    return 0;
}

/* re.search(r"(?i)\btype\s*=\s*["']?([^"'\s>]+)", attrs) (ASCII), then _JSON_TYPES on the
 * value: (?i)\bjson\b|ld\+json. */
static int script_is_json(const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    for (Py_ssize_t i = a; i + 4 <= z; i++) {
        if ((b[i] | 0x20) != 't' || (b[i + 1] | 0x20) != 'y' || (b[i + 2] | 0x20) != 'p' || (b[i + 3] | 0x20) != 'e')
            continue;
        if (i > a && wordc(b[i - 1]))
            continue;
        Py_ssize_t j = i + 4;
        while (j < z && ws(b[j]))
            j++;
        if (j >= z || b[j] != '=')
            continue;
        j++;
        while (j < z && ws(b[j]))
            j++;
        Py_ssize_t vs = j;
        if (j < z && (b[j] == '"' || b[j] == '\''))
            vs = j + 1;
        Py_ssize_t ve = vs;
        while (ve < z && !(b[ve] == '"' || b[ve] == '\'' || ws(b[ve]) || b[ve] == '>'))
            ve++;
        if (ve == vs)
            continue; /* with the quote given back, the value cannot start at a quote either */
        for (Py_ssize_t t = vs; t + 4 <= ve; t++) {
            if ((b[t] | 0x20) == 'j' && (b[t + 1] | 0x20) == 's' && (b[t + 2] | 0x20) == 'o' && (b[t + 3] | 0x20) == 'n' &&
                !(t > vs && wordc(b[t - 1])) && !(t + 4 < ve && wordc(b[t + 4])))
                return 1;
            if (t + 7 <= ve && (b[t] | 0x20) == 'l' && (b[t + 1] | 0x20) == 'd' && b[t + 2] == '+' &&
                (b[t + 3] | 0x20) == 'j' && (b[t + 4] | 0x20) == 's' && (b[t + 5] | 0x20) == 'o' && (b[t + 6] | 0x20) == 'n')
                return 1;
        }
        return 0;
    }
    return 0;
}

/* </name, ASCII case-insensitively, from byte `from`: its start, or -1. */
static Py_ssize_t find_end_tag(const unsigned char *b, Py_ssize_t from, Py_ssize_t n, const char *name)
{
    Py_ssize_t nl = (Py_ssize_t)strlen(name);
    for (Py_ssize_t p = find_byte(b, from, n, '<'); p >= 0; p = find_byte(b, p + 1, n, '<')) {
        if (p + 2 + nl > n)
            return -1;
        if (b[p + 1] != '/')
            continue;
        Py_ssize_t t = 0;
        while (t < nl && (b[p + 2 + t] | 0x20) == (unsigned char)name[t])
            t++;
        if (t == nl)
            return p;
    }
    return -1;
}

/* html.DOI_ELEMENTS: an opening tag (its name lower-cased, nn bytes) whose text is one DOI
 * (spec §7, XML), its attribute b[a:z) that must say "doi" read as html._ATTR reads pairs. */
static int names_a_doi(const char *lower, Py_ssize_t nn, const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    const char *want = NULL;
    int found = 0;
    for (size_t e = 0; e < sizeof DOI_ELEMENTS / sizeof *DOI_ELEMENTS && !found; e++)
        if (name_is(lower, nn, DOI_ELEMENTS[e][0]))
            found = 1, want = DOI_ELEMENTS[e][1];
    if (!found)
        return 0;
    if (want == NULL)
        return 1;
    Py_ssize_t wl = (Py_ssize_t)strlen(want), i = a, ns, ne, vs, ve;
    while (next_attr(b, &i, z, &ns, &ne, &vs, &ve)) {
        if (vs < 0 || ne - ns != wl)
            continue; /* the name alone, or another name */
        int named = 1;
        for (Py_ssize_t k = 0; named && k < wl; k++)
            named = (b[ns + k] | (ascii_alpha(b[ns + k]) ? 0x20 : 0)) == (unsigned char)want[k];
        if (named)
            return ve - vs == 3 && (b[vs] | 0x20) == 'd' && (b[vs + 1] | 0x20) == 'o' && (b[vs + 2] | 0x20) == 'i';
    }
    return 0;
}

/* The first text b[*a:z) of an element that names a DOI (html._labelled): its leading whitespace,
 * then "doi:" standing for no raw text, mapped from where the DOI starts; *a moves past the
 * whitespace. */
static int labelled(HView *flow, const unsigned char *b, Py_ssize_t *a, Py_ssize_t z)
{
    Py_ssize_t k = *a;
    while (k < z && ws(b[k]))
        k++;
    if (k > *a && hv_linear(flow, b + *a, k - *a, *a) < 0)
        return -1;
    *a = k;
    return hv_seg(flow, (const unsigned char *)"doi:", 4, k, 0);
}

/* Before the first text of an element that names a DOI, where its whitespace is not skipped
 * (CDATA, a lone "<", a title): "doi:", standing for no raw text. */
#define LABEL_AT(at)                                                                                  \
    do {                                                                                            \
        if (label) {                                                                                \
            label = 0;                                                                              \
            if (hv_seg(flow, (const unsigned char *)"doi:", 4, (at), 0) < 0)                        \
                return -1;                                                                          \
        }                                                                                           \
    } while (0)

/* html_views: the flow, attribute and JSON views of b[0:n). */
static int build_views(const unsigned char *b, Py_ssize_t n, HView *flow, HView *attrs, HView *data, PyObject *unescape)
{
    Py_ssize_t pos = 0, next_gt = -1;
    int last_inline_close = 0, label = 0;
    /* the link open (spec §6): its target's span, where its text starts, its tag's name */
    Py_ssize_t link_ts = -1, link_te = -1, link_xs = -1, link_nn = 0;
    char link_name[64];
    while (pos < n) {
        Py_ssize_t lt = find_byte(b, pos, n, '<');
        if (lt < 0) {
            if (label && labelled(flow, b, &pos, n) < 0)
                return -1;
            if (hv_text(flow, b, pos, n, unescape) < 0)
                return -1;
            break;
        }
        if (lt > pos) {
            Py_ssize_t start = pos;
            if (label && labelled(flow, b, &start, lt) < 0)
                return -1;
            label = 0;
            if (hv_text(flow, b, start, lt, unescape) < 0)
                return -1;
            last_inline_close = 0;
        }
        unsigned after = lt + 1 < n ? b[lt + 1] : 0;
        if (after == '!' || after == '?') {
            if (lt + 4 <= n && memcmp(b + lt, "<!--", 4) == 0) {
                Py_ssize_t end = find_str(b, lt + 4, n, "-->");
                pos = end < 0 ? n : end + 3;
            } else if (lt + 9 <= n && memcmp(b + lt, "<![CDATA[", 9) == 0) {
                Py_ssize_t end = find_str(b, lt + 9, n, "]]>");
                if (end < 0)
                    end = n;
                LABEL_AT(lt + 9);
                if (hv_text(flow, b, lt + 9, end, unescape) < 0)
                    return -1;
                pos = end + 3 < n ? end + 3 : n;
            } else {
                Py_ssize_t end = find_byte(b, lt, n, '>');
                pos = end < 0 ? n : end + 1;
            }
            continue;
        }
        Py_ssize_t mend = -1, name_end = 0;
        if (ascii_alpha(after) || after == '/') {
            /* up to a ">" (the next one, or a later one when the first stands inside a quoted
             * value): bounded work per "<", whatever the markup */
            if (next_gt < lt) {
                next_gt = find_byte(b, lt, n, '>');
                if (next_gt < 0)
                    next_gt = n;
            }
            Py_ssize_t gt = next_gt;
            for (int attempt = 0; attempt < 4; attempt++) {
                if (gt >= n || (gt - lt > MAX_TAG && count_chars(b, n, lt, gt) > MAX_TAG))
                    break;
                Py_ssize_t dq, sq;
                count_quotes(b, lt, gt, &dq, &sq);
                int one_unclosed = (dq == 0 && sq % 2 == 1) || (sq == 0 && dq % 2 == 1);
                if (!(attempt && one_unclosed)) {
                    mend = tag_match(b, lt, gt + 1, &name_end);
                    if (mend >= 0 || (dq % 2 == 0 && sq % 2 == 0))
                        break;
                }
                gt = find_byte(b, gt + 1, n, '>');
                if (gt < 0)
                    gt = n;
            }
        }
        if (mend < 0) {
            LABEL_AT(lt);
            if (hv_linear(flow, b + lt, 1, lt) < 0)
                return -1;
            pos = lt + 1;
            continue;
        }
        int closing = b[lt + 1] == '/';
        Py_ssize_t ns = lt + 1 + closing, nn = name_end - ns;
        char lower[64];
        for (Py_ssize_t t = 0; t < nn; t++)
            lower[t] = (char)(b[ns + t] | (ascii_alpha(b[ns + t]) ? 0x20 : 0));
        pos = mend;
        int inl = is_inline(lower, nn);
        Py_ssize_t ts = -1, te = -1;
        int target = inl && !closing && mend - 1 > name_end && href_value(b, name_end, mend - 1, &ts, &te);
        if (link_ts >= 0 && (!inl || target || (closing && nn == link_nn && memcmp(lower, link_name, (size_t)nn) == 0))) {
            if (links_add(&flow->links, link_ts, link_te, link_xs, lt) < 0) /* its text ends here */
                return -1;
            link_ts = -1;
        }
        if (target) {
            link_ts = ts, link_te = te, link_xs = mend, link_nn = nn;
            memcpy(link_name, lower, (size_t)nn);
        }
        if (!inl || (last_inline_close && !closing) || (name_is(lower, nn, "a") && closing)) {
            if (hv_seg(flow, (const unsigned char *)"\n", 1, lt, mend - lt) < 0)
                return -1;
        }
        last_inline_close = inl && closing;
        Py_ssize_t as = name_end, ae = mend - 1; /* the attribute text */
        label = !closing && names_a_doi(lower, nn, b, as, ae);
        if (!closing && ae > as && hv_attributes(attrs, b, as, ae, unescape) < 0)
            return -1;
        if (!closing && (name_is(lower, nn, "script") || name_is(lower, nn, "style") || name_is(lower, nn, "textarea") ||
                         name_is(lower, nn, "title"))) {
            char nm[16];
            memcpy(nm, lower, (size_t)nn);
            nm[nn] = 0;
            Py_ssize_t end = find_end_tag(b, pos, n, nm);
            if (end < 0)
                end = n;
            if (name_is(lower, nn, "script")) {
                if (script_is_json(b, as, ae)) {
                    if (hv_json(data, b, pos, end) < 0 || hv_seg(data, (const unsigned char *)"\n", 1, end, 0) < 0)
                        return -1;
                }
            } else if (name_is(lower, nn, "textarea") || name_is(lower, nn, "title")) {
                LABEL_AT(pos);
                if (hv_text(flow, b, pos, end, unescape) < 0)
                    return -1;
            }
            pos = end;
        }
    }
    if (link_ts >= 0 && links_add(&flow->links, link_ts, link_te, link_xs, n) < 0)
        return -1;
    return 0;
}
#undef LABEL_AT

static int hspan_cmp(const void *x, const void *y)
{
    const HSpan *a = x, *b = y;
    if (a->rs != b->rs)
        return a->rs < b->rs ? -1 : 1;
    if (a->re != b->re)
        return a->re < b->re ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* What views_find found in a page: its hits sorted by raw position (their names kept in
 * `found`, the views' hits as the matcher collected them, no Python object each), the raw spans
 * of the candidates dropped as too long, and their count. */
typedef struct {
    HSpan *hs;
    Py_ssize_t nh;
    PFound found;
    Py_ssize_t *drop; /* (anchor, token end) pairs, raw */
    Py_ssize_t nd;
    Py_ssize_t too_long;
} HFound;

static void hfound_free(HFound *f)
{
    PyMem_Free(f->hs);
    PyMem_Free(f->drop);
    pfound_free(&f->found);
    f->hs = NULL;
    f->drop = NULL;
}

/* What builds a document's views (up to three; the rest left empty): HTML's, or a source
 * syntax's (wikitext.c). Returns 0, or -1 with an exception set. */
typedef int (*ViewBuilder)(const unsigned char *b, Py_ssize_t n, HView v[3], PyObject *unescape);

static int html_builder(const unsigned char *b, Py_ssize_t n, HView v[3], PyObject *unescape)
{
    return build_views(b, n, &v[0], &v[1], &v[2], unescape);
}

/* find_spans(…, "html"), or with a syntax's views, on b[0:n): the views built, each searched by
 * scan(), hits mapped back. */
static int views_find(const unsigned char *b, Py_ssize_t n, PyObject *unescape, HFound *f, ViewBuilder build)
{
    memset(f, 0, sizeof *f);
    HView v[3];
    memset(v, 0, sizeof v);
    PyObject *dropped = PyList_New(0);
    int ok = dropped != NULL && build(b, n, v, unescape) == 0;
    Py_ssize_t firsts[4] = {0, 0, 0, 0}, dfirsts[4] = {0, 0, 0, 0};
    /* the run buffers of scan(), once for the three views (a page is a call: small pages are many) */
    cp_t *s = ok ? PyMem_Malloc(sizeof(cp_t) * RUN_CAP) : NULL;
    Py_ssize_t *bo = ok ? PyMem_Malloc(sizeof(Py_ssize_t) * RUN_CAP) : NULL;
    if (ok && (s == NULL || bo == NULL)) {
        PyErr_NoMemory();
        ok = 0;
    }
    for (int w = 0; ok && w < 3; w++) {
        firsts[w] = f->found.n;
        dfirsts[w] = PyList_GET_SIZE(dropped);
        if (v[w].tn == 0)
            continue;
        Sink k;
        memset(&k, 0, sizeof k);
        k.lo = 0, k.hi = v[w].tn, k.rlo = 0, k.rhi = v[w].tn + 1, k.line_base = -1;
        k.collect = &f->found; /* every hit of the view, in its order */
        k.dropped = dropped;
        Buf B = {v[w].t, v[w].tn, NULL};
        ok = scan_in(&B, &k, s, bo) == 0;
        f->too_long += k.too_long;
    }
    PyMem_Free(s);
    PyMem_Free(bo);
    if (ok) {
        firsts[3] = f->nh = f->found.n;
        dfirsts[3] = f->nd = PyList_GET_SIZE(dropped);
        f->hs = PyMem_Malloc((size_t)(f->nh ? f->nh : 1) * sizeof(HSpan));
        f->drop = PyMem_Malloc((size_t)(f->nd ? 2 * f->nd : 1) * sizeof(Py_ssize_t));
        if (f->hs == NULL || f->drop == NULL) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    for (int w = 0; ok && w < 3; w++) {
        for (Py_ssize_t i = firsts[w]; i < firsts[w + 1]; i++) {
            const PHit *h = &f->found.hit[i];
            hv_to_raw(&v[w], h->start, h->end, &f->hs[i].rs, &f->hs[i].re);
            f->hs[i].form = h->form;
            f->hs[i].name = h->name;
            f->hs[i].nn = h->len;
            f->hs[i].order = i;
        }
        for (Py_ssize_t i = dfirsts[w]; i < dfirsts[w + 1]; i++) {
            PyObject *t = PyList_GET_ITEM(dropped, i);
            Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 0)), e = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 1));
            Py_ssize_t ra, rb, ea, eb;
            hv_to_raw(&v[w], a, a + 1, &ra, &rb);
            hv_to_raw(&v[w], e > a ? e - 1 : a, e > a ? e : a + 1, &ea, &eb);
            f->drop[2 * i] = ra;
            f->drop[2 * i + 1] = eb;
        }
    }
    if (ok)
        qsort(f->hs, (size_t)f->nh, sizeof(HSpan), hspan_cmp);
    for (int w = 0; ok && w < 3; w++) /* spec §6: the links' second hits taken out */
        ok = one_per_link(f->hs, &f->nh, f->found.names, &v[w].links) == 0;
    Py_XDECREF(dropped);
    for (int w = 0; w < 3; w++)
        hv_free(&v[w]);
    if (!ok)
        hfound_free(f);
    return ok ? 0 : -1;
}

/* html_spans(data, unescape) -> (spans, dropped, too_long), with the views `build` makes. */
static PyObject *spans_call(PyObject *args, ViewBuilder build)
{
    Py_buffer view;
    PyObject *unescape;
    if (!PyArg_ParseTuple(args, "y*O", &view, &unescape))
        return NULL;
    HFound f;
    PyObject *spans = NULL, *dropped = NULL, *result = NULL;
    if (views_find((const unsigned char *)view.buf, view.len, unescape, &f, build) == 0) {
        spans = PyList_New(f.nh);
        dropped = PyList_New(f.nd);
        int ok = spans != NULL && dropped != NULL;
        char kb[KEY_BYTES];
        for (Py_ssize_t i = 0; ok && i < f.nh; i++) {
            Py_ssize_t kn = name_key(f.found.names + f.hs[i].name, f.hs[i].nn, kb);
            PyObject *t = Py_BuildValue("(nnis#)", f.hs[i].rs, f.hs[i].re, f.hs[i].form, kb, kn);
            if (t == NULL)
                ok = 0;
            else
                PyList_SET_ITEM(spans, i, t);
        }
        for (Py_ssize_t i = 0; ok && i < f.nd; i++) {
            PyObject *t = Py_BuildValue("(nn)", f.drop[2 * i], f.drop[2 * i + 1]);
            if (t == NULL)
                ok = 0;
            else
                PyList_SET_ITEM(dropped, i, t);
        }
        if (ok)
            result = Py_BuildValue("(OOn)", spans, dropped, f.too_long);
        hfound_free(&f);
    }
    Py_XDECREF(spans);
    Py_XDECREF(dropped);
    PyBuffer_Release(&view);
    return result;
}


/* html_scan: scan() for HTML (its arguments and result, and the unescape function): the hits of
 * the page's views that start in [lo, hi) and [rlo, rhi) of the markup, counted and/or listed
 * with their raw markup text, offsets and lines as scan() gives them. */
static PyObject *views_scan_call(PyObject *args, PyObject *kw, ViewBuilder build)
{
    static char *kwlist[] = {"data",     "unescape", "lo",    "hi",        "rlo",       "rhi",     "base",
                             "mentions", "hits",     "chars", "line_base", "line_from", "line_to", NULL};
    Py_buffer view;
    Sink k = {0};
    PyObject *unescape, *mentions = Py_None, *hits = Py_None;
    long long base = 0, line_base = -1;
    Py_ssize_t line_from = 0, line_to = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*Onnnn|LOOpLnn", kwlist, &view, &unescape, &k.lo, &k.hi, &k.rlo, &k.rhi,
                                     &base, &mentions, &hits, &k.chars, &line_base, &line_from, &line_to))
        return NULL;
    const char *bad = NULL;
    if (line_base >= 0 && (line_from < 0 || line_from > view.len || line_to > view.len))
        bad = "line_from or line_to out of range";
    else if (hits != Py_None && !PyList_Check(hits))
        bad = "hits must be a list or None";
    if (bad != NULL) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    k.base = base;
    k.line_base = line_base < 0 ? -1 : (int64_t)line_base;
    k.lb = line_from;
    if (sink_bind(&k, mentions) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    k.hits = hits == Py_None ? NULL : hits;
    Buf B = {(const unsigned char *)view.buf, view.len, NULL};
    HFound f;
    int rc = views_find(B.b, B.n, unescape, &f, build), found = rc == 0;
    Py_ssize_t last_end = 0;
    char kb[KEY_BYTES];
    for (Py_ssize_t i = 0; rc == 0 && i < f.nh; i++) {
        const HSpan *h = &f.hs[i];
        if (h->rs < k.lo || h->rs >= k.hi)
            continue;
        last_end = h->re; /* the end of the last hit chosen, as the window loop reads it */
        if (h->rs < k.rlo || h->rs >= k.rhi)
            continue;
        rc = emit_key(&k, &B, h->rs, h->re, h->form, kb, name_key(f.found.names + h->name, h->nn, kb));
    }
    for (Py_ssize_t i = 0; rc == 0 && i < f.nd; i++) /* spec §4: its token is passed over to its end */
        if (f.drop[2 * i] >= k.lo && f.drop[2 * i] < k.hi && f.drop[2 * i + 1] > last_end)
            last_end = f.drop[2 * i + 1];
    long long lines = rc == 0 ? newlines_to(&k, &B, line_to) : -1;
    Py_ssize_t too_long = found ? f.too_long : 0;
    if (found)
        hfound_free(&f);
    PyBuffer_Release(&view);
    if (rc < 0)
        return NULL;
    return Py_BuildValue("(nnnL)", k.reported, last_end, too_long, lines);
}

/* The two entry points of a kind or syntax whose views `builder` makes: py_NAME_spans (html_spans'
 * arguments and result) and py_NAME_scan (html_scan's). */
#define VIEW_ENTRIES(name, builder)                                                     \
    static PyObject *py_##name##_spans(PyObject *self, PyObject *args)                 \
    {                                                                                   \
        (void)self;                                                                     \
        return spans_call(args, builder);                                               \
    }                                                                                   \
    static PyObject *py_##name##_scan(PyObject *self, PyObject *args, PyObject *kw)    \
    {                                                                                   \
        (void)self;                                                                     \
        return views_scan_call(args, kw, builder);                                      \
    }

VIEW_ENTRIES(html, html_builder)

/* html_views(data, unescape) -> [(text, segments)] * 3: the views themselves (tests compare them
 * with html.py's; segments a flat list of view start, raw start, raw length). */
static PyObject *py_html_views(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer view;
    PyObject *unescape;
    if (!PyArg_ParseTuple(args, "y*O", &view, &unescape))
        return NULL;
    HView v[3];
    memset(v, 0, sizeof v);
    PyObject *out = NULL;
    if (build_views((const unsigned char *)view.buf, view.len, &v[0], &v[1], &v[2], unescape) == 0) {
        out = PyList_New(3);
        for (int w = 0; out != NULL && w < 3; w++) {
            PyObject *segs = PyList_New(3 * v[w].sn);
            for (Py_ssize_t i = 0; segs != NULL && i < 3 * v[w].sn; i++) {
                PyObject *x = PyLong_FromSsize_t(v[w].seg[i]);
                if (x == NULL)
                    Py_CLEAR(segs);
                else
                    PyList_SET_ITEM(segs, i, x);
            }
            PyObject *t = segs == NULL ? NULL : Py_BuildValue("(y#O)", v[w].t ? (const char *)v[w].t : "", v[w].tn, segs);
            Py_XDECREF(segs);
            if (t == NULL)
                Py_CLEAR(out);
            else
                PyList_SET_ITEM(out, w, t);
        }
    }
    for (int w = 0; w < 3; w++)
        hv_free(&v[w]);
    PyBuffer_Release(&view);
    return out;
}
