/* ---- the scan ------------------------------------------------------------------------------ */

/* The next "10." at or after i, or -1. */
/* The next "10." (a DOI's anchor), or a shortDOI trigger: "10/", "10%" (of 10%2F) or "rg/". */
static Py_ssize_t next_anchor(const unsigned char *b, Py_ssize_t n, Py_ssize_t i)
{
#ifdef __SSE2__
    /* "10." or "10/" ('.' and '/' differ in the low bit only), or "?g/" with the "r" of "rg/"
     * checked one by one (".org/" is the common "g/") */
    const __m128i one = _mm_set1_epi8('1'), zero = _mm_set1_epi8('0'), dot = _mm_set1_epi8('.');
    const __m128i fe = _mm_set1_epi8((char)0xFE), slash = _mm_set1_epi8('/'), x20 = _mm_set1_epi8(0x20);
    const __m128i g = _mm_set1_epi8('g');
    while (i + 18 <= n) {
        __m128i a = _mm_loadu_si128((const __m128i *)(b + i));
        __m128i c = _mm_loadu_si128((const __m128i *)(b + i + 1));
        __m128i d = _mm_loadu_si128((const __m128i *)(b + i + 2));
        __m128i ten = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a, one), _mm_cmpeq_epi8(c, zero)),
                                    _mm_cmpeq_epi8(_mm_and_si128(d, fe), dot));
        __m128i gs = _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(c, x20), g), _mm_cmpeq_epi8(d, slash));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(ten, gs));
        while (mask) {
            Py_ssize_t at = i + __builtin_ctz(mask);
            if (b[at] == '1' && b[at + 1] == '0')
                return at; /* "10." or "10/"; a "1g/" is a "?g/" (found by the cmatcher fuzz target) */
            if ((b[at] | 0x20) == 'r' && at >= 5 && (b[at - 5] | 0x20) == 'd' && (b[at - 4] | 0x20) == 'o' &&
                (b[at - 3] | 0x20) == 'i' && b[at - 2] == '.' && (b[at - 1] | 0x20) == 'o' &&
                !(at + 5 < n && b[at + 3] == '1' && b[at + 4] == '0' && b[at + 5] == '.'))
                return at; /* short_at checks the rest; other hosts' ".org/", and doi.org/10.…, are passed over here */
            mask &= mask - 1;
        }
        i += 16;
    }
#endif
    for (; i + 3 <= n; i++) {
        if (b[i] == '1' && b[i + 1] == '0' && (b[i + 2] == '.' || b[i + 2] == '/'))
            return i;
        if ((b[i] | 0x20) == 'r' && (b[i + 1] | 0x20) == 'g' && b[i + 2] == '/')
            return i;
    }
    return -1;
}


typedef struct {
    Py_ssize_t lo, hi, rlo, rhi; /* window and range of starts to report */
    int64_t base;
    int chars;          /* report offsets in characters (valid UTF-8 only), not bytes */
    Py_ssize_t cb, cc;  /* with chars: byte cb is character cc */
    PyObject *table;           /* where hits are counted (sink.h), or NULL */
    const DoiSinkApi *sink;    /* the table's C entry point, or NULL: its Python add() is called */
    PyObject *hits;
    Py_ssize_t reported, last_end, too_long;
    int64_t line_base;  /* newlines before byte lb0 of the data; -1: no line numbers */
    Py_ssize_t lb;      /* newlines are counted up to this byte ... */
    int64_t lc;         /* ... and there are lc of them from lb0 to it */
    PyObject *dropped;  /* a list for (anchor, token end) of each candidate dropped as too long, or NULL */
    struct PFound *collect; /* PDF text: hits go here, unfiltered, instead of to the table and list */
} Sink;

/* The sink for a table given from Python: its type's C entry point (sink.h), else its add()
 * method; None for no table. Returns 0, or -1 with TypeError. */
static int sink_bind(Sink *k, PyObject *table)
{
    k->table = NULL;
    k->sink = NULL;
    if (table == Py_None)
        return 0;
    /* on the table's own type (a borrowed reference: the type holds it, the caller the table) */
    PyObject *dict = Py_TYPE(table)->tp_dict;
    PyObject *cap = dict == NULL ? NULL : PyDict_GetItemString(dict, DOI_SINK_ATTR);
    if (cap != NULL && PyCapsule_IsValid(cap, DOI_SINK_CAPSULE)) {
        k->sink = PyCapsule_GetPointer(cap, DOI_SINK_CAPSULE);
    } else if (!PyObject_HasAttrString(table, "add")) {
        PyErr_SetString(PyExc_TypeError, "mentions must be a table with add(doi, offset, form, raw, line), or None");
        return -1;
    }
    k->table = table;
    return 0;
}

static PyObject *raw_or_doi(const Buf *B, Py_ssize_t s, Py_ssize_t e, const char *key, Py_ssize_t klen, PyObject *doi);

/* A hit counted by a table's Python add(doi, offset, form, raw, line) (a table without the C
 * entry point: pipeline/table.py's, when its C part was not built). */
static int add_by_method(PyObject *table, const Buf *B, Py_ssize_t start, Py_ssize_t end, int64_t offset, int64_t line,
                         int form, const char *kb, Py_ssize_t kn)
{
    PyObject *doi = PyUnicode_DecodeUTF8(kb, kn, "strict");
    PyObject *raw = doi == NULL ? NULL : raw_or_doi(B, start, end, kb, kn, doi);
    PyObject *r = raw == NULL ? NULL
                              : PyObject_CallMethod(table, "add", "OLiOL", doi, (long long)offset, form, raw, (long long)line);
    Py_XDECREF(doi);
    Py_XDECREF(raw);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

static int collect_hit(struct PFound *f, Py_ssize_t start, Py_ssize_t end, int form, const cp_t *name, Py_ssize_t nn);

/* How many bytes of d[a:b) are newlines (lead = 0), or are no UTF-8 continuation byte (lead = 1:
 * the characters of valid UTF-8, 0x80-0xBF being -128..-65 as signed bytes): 16 bytes a step
 * where SSE2 is (this runs over every byte of a text file, for its line numbers, and of a
 * record's text, for its character offsets). Called with a constant `lead`, as the two below. */
static inline Py_ssize_t count_bytes(const unsigned char *d, Py_ssize_t a, Py_ssize_t b, int lead)
{
    Py_ssize_t n = 0;
#ifdef __SSE2__
    /* Each step subtracts the compare's -1 per byte counted from byte counters; after at most
     * 255 steps (a counter's limit) their sum is taken by one SAD against zero. No popcount,
     * which the baseline x86-64 target makes a library call. */
    const __m128i nl = _mm_set1_epi8('\n'), last_cont = _mm_set1_epi8(-65), zero = _mm_setzero_si128();
    while (a + 16 <= b) {
        __m128i acc = zero;
        for (int k = 0; k < 255 && a + 16 <= b; k++, a += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(d + a));
            acc = _mm_sub_epi8(acc, lead ? _mm_cmpgt_epi8(v, last_cont) : _mm_cmpeq_epi8(v, nl));
        }
        __m128i sums = _mm_sad_epu8(acc, zero);
        n += (Py_ssize_t)_mm_cvtsi128_si64(sums) + (Py_ssize_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
#endif
    for (; a < b; a++)
        n += lead ? (d[a] & 0xC0) != 0x80 : d[a] == '\n';
    return n;
}

static Py_ssize_t count_newlines(const unsigned char *d, Py_ssize_t a, Py_ssize_t b) { return count_bytes(d, a, b, 0); }
static Py_ssize_t count_lead_bytes(const unsigned char *d, Py_ssize_t a, Py_ssize_t b) { return count_bytes(d, a, b, 1); }

/* Decode the run (characters up to whitespace, '"' or a control) from byte q into s[a:],
 * until it has `want` characters; returns how many it has. The cut classes of the characters
 * read are OR-ed into *cuts (first_cut has nothing to do where they are 0). */
static Py_ssize_t decode_run(const Buf *B, Py_ssize_t *qpos, cp_t *s, Py_ssize_t *bo, Py_ssize_t a, Py_ssize_t have, Py_ssize_t want,
                             unsigned *cuts)
{
    Py_ssize_t i = *qpos;
    unsigned m = 0;
    while (have < want && i < B->n) {
        unsigned char u = B->b[i];
        if (u < 0x80) { /* ASCII a byte at a time */
            if (ascii_class[u] & C_RUN_END)
                break;
            s[a + have] = u;
            bo[a + have] = i;
            m |= CUT_ASCII[u];
            have++;
            i++;
            continue;
        }
        cp_t c;
        int k = dec(B->b, B->n, i, &c);
        if (run_end(c))
            break;
        m |= cut_class(c);
        s[a + have] = c;
        bo[a + have] = i;
        have++;
        i += k;
    }
    *qpos = i;
    *cuts |= m;
    return have;
}

static int emit_key(Sink *k, const Buf *B, Py_ssize_t start, Py_ssize_t end, int form, const char *kb, Py_ssize_t kn);

/* Where the run from byte i ends: its first run_end character, or the text's end. *ascii, when
 * asked, gets the byte after its last non-ASCII character (i when it has none). */
static Py_ssize_t run_stop(const Buf *B, Py_ssize_t i, Py_ssize_t *ascii)
{
    if (ascii != NULL)
        *ascii = i;
    while (i < B->n) {
        cp_t c;
        int k = dec(B->b, B->n, i, &c);
        if (run_end(c))
            break;
        i += k;
        if (ascii != NULL && c >= 0x80)
            *ascii = i;
    }
    return i;
}

/* a name is at most MAX_LOGICAL characters (read_run, join_pieces), each of at most 4 bytes */
#define KEY_BYTES (4 * (MAX_LOGICAL + 8))

/* The canonical key of a DOI's name (spec §6), UTF-8 into kb (KEY_BYTES); its length. */
static Py_ssize_t name_key(const cp_t *name, Py_ssize_t nn, char *kb)
{
    assert(nn >= 0 && nn <= MAX_LOGICAL + 8);
    for (Py_ssize_t i = 0; i < nn; i++)
        if (name[i] >= 0x80 || name[i] == '%') {
            cp_t key[MAX_LOGICAL + 8];
            Py_ssize_t cn = canonical(name, nn, key);
            return utf8_encode(key, cn, kb);
        }
    /* ASCII with no escape: the key is the name with A-Z folded */
    for (Py_ssize_t i = 0; i < nn; i++)
        kb[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    return nn;
}

static int emit(Sink *k, const Buf *B, Py_ssize_t start, Py_ssize_t end, int form, const cp_t *name, Py_ssize_t nn)
{
    if (k->collect != NULL)
        return collect_hit(k->collect, start, end, form, name, nn);
    /* anchors before lo were passed over (scan): a hit here may start before lo, a URL's
     * start lying behind the end of the hit before it */
    if (start >= k->hi)
        return 0;
    if (end > k->last_end)
        k->last_end = end;
    if (start < k->rlo || start >= k->rhi)
        return 0;
    char kb[KEY_BYTES];
    return emit_key(k, B, start, end, form, kb, name_key(name, nn, kb));
}

/* A hit of B[start:end) with its canonical key: counted in the table and/or listed, with its
 * offset (bytes or characters, + base) and its line. */
static int emit_key(Sink *k, const Buf *B, Py_ssize_t start, Py_ssize_t end, int form, const char *kb, Py_ssize_t kn)
{
    Py_ssize_t at = start, to = end;
    if (k->chars) {
        /* count the characters (lead bytes) since the last hit; a URL hit that holds the one
         * before it starts before it (fuzz/corpus/cmatcher/found-unordered-spans): count back */
        if (k->cb < start)
            k->cc += count_lead_bytes(B->b, k->cb, start);
        else
            k->cc -= count_lead_bytes(B->b, start, k->cb);
        k->cb = start;
        at = k->cc;
        to = at + count_lead_bytes(B->b, start, end);
    }
    int64_t line = -1;
    if (k->line_base >= 0) {
        /* hits come in order but for a URL holding the hit before it: count back then */
        if (start >= k->lb)
            k->lc += count_newlines(B->b, k->lb, start);
        else
            k->lc -= count_newlines(B->b, start, k->lb);
        k->lb = start;
        line = k->line_base + k->lc + 1;
    }
    int rc = 0;
    if (k->sink != NULL)
        rc = k->sink->add(k->table, kb, kn, k->base + at, line, form, B->b + start, end - start);
    else if (k->table != NULL)
        rc = add_by_method(k->table, B, start, end, k->base + at, line, form, kb, kn);
    if (rc == 0 && k->hits != NULL) {
        PyObject *doi = PyUnicode_DecodeUTF8(kb, kn, "strict");
        PyObject *raw = doi == NULL ? NULL : raw_or_doi(B, start, end, kb, kn, doi);
        PyObject *ln = line < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(line);
        PyObject *t = raw == NULL || ln == NULL ? NULL
                                                : Py_BuildValue("(LLiOOO)", (long long)(k->base + at), (long long)(k->base + to),
                                                                form, doi, raw, ln);
        Py_XDECREF(ln);
        rc = (t == NULL || PyList_Append(k->hits, t) < 0) ? -1 : 0;
        Py_XDECREF(doi);
        Py_XDECREF(raw);
        Py_XDECREF(t);
    }
    k->reported++;
    return rc;
}

/* Read the run after an anchor into s[off:] (byte offsets in bo), as find._extend does: the
 * short window first, the whole window only when no rule ends the name in the short one. The
 * rules of first_cut never end a name inside its anchor, so they are applied to the run alone.
 * Returns the run's length, or -1 for a candidate that no rule ends within MAX_DOI_CHARS (spec
 * §4: dropped and counted), with *skip where its token ends. *qq is the byte after the run;
 * *cut is first_cut of the run when it was found on the way, else -1. */
static Py_ssize_t read_run(const Buf *B, Py_ssize_t q, cp_t *s, Py_ssize_t *bo, Py_ssize_t off, int form, Py_ssize_t *qq,
                           Py_ssize_t *skip, Py_ssize_t *cut, int early)
{
    *qq = q;
    *cut = -1;
    Py_ssize_t have = 0;
    /* A cut in the first characters is the cut of the short window too when no rule's
     * lookahead reaches past them: every cut falls on a character no pattern crosses, and only a
     * tag name running to the window's end (rules._TAGLIKE) waits for more; a later character
     * that is neither a tag-name character nor '/' ends any such name. Read 16, 32, 64, then 128
     * characters for such a cut before the short window: a list of DOIs joined by commas reads
     * each DOI and the next, not 256 characters a DOI. */
    unsigned cuts = 0;
    for (Py_ssize_t want = FIRST_WINDOW; early && want < SHORT_WINDOW && off + SHORT_WINDOW + 1 <= MAX_LOGICAL; want *= 2) {
        have = decode_run(B, qq, s, bo, off, have, want, &cuts);
        if (have < want)
            return have; /* the run ends before the window does */
        if (cuts == 0)
            continue; /* no character any rule of first_cut reacts to: no cut */
        Py_ssize_t c = first_cut(s + off, have, form);
        for (Py_ssize_t t = c + 1; t < have; t++)
            if (!(az_ci(s[off + t]) || is_digit(s[off + t]) || s[off + t] == ':' || s[off + t] == '_' ||
                  s[off + t] == '.' || s[off + t] == '-' || s[off + t] == '/')) {
                *cut = c;
                return have;
            }
    }
    have = decode_run(B, qq, s, bo, off, have, SHORT_WINDOW + 1, &cuts);
    if (have > SHORT_WINDOW && first_cut(s + off, have, form) >= SHORT_WINDOW) {
        have = decode_run(B, qq, s, bo, off, have, MAX_DOI_CHARS + 1, &cuts);
        if (have > MAX_DOI_CHARS && first_cut(s + off, have, form) >= MAX_DOI_CHARS) {
            *skip = run_stop(B, *qq, NULL);
            return -1;
        }
    }
    return have;
}

/* ---- shortDOIs (shortdoi.short_dois) ---------------------------------------------------- */

#define SHORT_LEFT 40

static inline int a_alnum(cp_t c) { return c < 128 && (is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')); }

/* The reversed text r (r[0] just before the trigger) has the literal `lit` ending at e, in ASCII
 * case-insensitively (labels and resolvers fold ASCII only). */
static int rlit_a(const cp_t *r, Py_ssize_t n, Py_ssize_t e, const char *lit)
{
    Py_ssize_t L = (Py_ssize_t)strlen(lit);
    if (e + L > n)
        return 0;
    for (Py_ssize_t k = 0; k < L; k++) {
        cp_t c = r[e + k], l = (unsigned char)lit[L - 1 - k];
        if (!(c == l || (l >= 'a' && l <= 'z' && c == l - 32)))
            return 0;
    }
    return 1;
}

/* (?:(?<![a-z0-9])https?:/{1,3})?(?<![a-z0-9.-])HOST\Z, HOST the literal `lit` optionally after
 * "dx." or "www.": the length of the match back from the trigger, or 0. Only the first
 * SHORT_LEFT characters may be matched; the character before a match is looked at (lookbehind). */
static Py_ssize_t resolver_back(const cp_t *r, Py_ssize_t n, const char *lit, int prefixes)
{
    if (!rlit_a(r, n, 0, lit))
        return 0;
    Py_ssize_t h = (Py_ssize_t)strlen(lit);
    if (prefixes) {
        if (rlit_a(r, n, h, "dx."))
            h += 3;
        else if (rlit_a(r, n, h, "www."))
            h += 4;
    }
    if (h > SHORT_LEFT || (h < n && (a_alnum(r[h]) || r[h] == '.' || r[h] == '-')))
        return 0;
    Py_ssize_t j = h;
    while (j < n && j - h < 4 && r[j] == '/')
        j++;
    if (j == h || j - h > 3 || !(j < n && r[j] == ':'))
        return h;
    j++;
    if (rlit_a(r, n, j, "https"))
        j += 5;
    else if (rlit_a(r, n, j, "http"))
        j += 4;
    else
        return h;
    if (j > SHORT_LEFT || (j < n && a_alnum(r[j])))
        return h;
    return j;
}

/* shortdoi._rest_ok: after the code only trailing punctuation and closing brackets, or what
 * ends a DOI in its context: `stops` ("?#&" after a resolver, with a lone "/"; "?#" after a URN). */
static int short_rest_ok(const Buf *B, Py_ssize_t i, const char *stops)
{
    cp_t rest[66];
    Py_ssize_t m = 0;
    while (i < B->n && m < 66) {
        cp_t c;
        int k = dec(B->b, B->n, i, &c);
        if (run_end(c) || c == '<' || c == '>')
            break;
        rest[m++] = c;
        i += k;
    }
    if (m > 64)
        return 0;
    while (m && (trailing(rest[m - 1]) || opener_of(rest[m - 1])))
        m--;
    if (m == 0)
        return 1;
    if (rest[0] < 128 && rest[0] && strchr(stops, (int)rest[0]))
        return 1;
    return m == 1 && rest[0] == '/' && strchr(stops, '&') != NULL;
}

/* The shortDOI at trigger p ("10/" or "rg/"), if any, to the sink. The bytes are checked first:
 * most "rg/" are doi.org/10.… URLs, most "10/" dates. */
static int short_at(const Buf *B, Sink *k, Py_ssize_t p)
{
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n, c = p + 3;
    int rg = (b[p] | 0x20) == 'r', ten = !rg;
    if (p < k->lo || p == 0)
        return 0;
    if (rg) {
        if (p < 5 || (b[p - 5] | 0x20) != 'd' || (b[p - 4] | 0x20) != 'o' || (b[p - 3] | 0x20) != 'i' || b[p - 2] != '.' ||
            (b[p - 1] | 0x20) != 'o')
            return 0;
        if (c + 2 < n && b[c] == '1' && b[c + 1] == '0' && b[c + 2] == '/')
            return 0; /* read at its "10/" */
        if (c + 4 < n && b[c] == '1' && b[c + 1] == '0' && b[c + 2] == '%' && b[c + 3] == '2' && (b[c + 4] | 0x20) == 'f') {
            c += 5; /* doi.org/10%2Fabcd */
            ten = 1;
        }
    } else {
        unsigned char pb = b[p - 1];
        if (!(pb == '/' || pb == ':' || pb == ' ' || pb == '\t' || pb == '=' || (pb | 0x20) == 'i' || pb == 0x9A))
            return 0;
    }
    Py_ssize_t e = c;
    while (e < n && e - c <= 64 && a_alnum(b[e]))
        e++;
    Py_ssize_t cn = e - c;
    if (cn == 0 || cn > 64)
        return 0;
    if (!ten) {
        /* doi.org/<code>: 4+ letters and digits, a letter and a digit among them */
        int digit = 0, letter = 0;
        for (Py_ssize_t t = c; t < e; t++) {
            if (is_digit(b[t]))
                digit = 1;
            else
                letter = 1;
        }
        if (cn < 4 || !digit || !letter)
            return 0;
    }
    cp_t r[SHORT_LEFT + 2];
    Py_ssize_t off[SHORT_LEFT + 2], nr = 0, i = p;
    while (nr < SHORT_LEFT + 1 && i > 0) {
        cp_t ch;
        i -= dec_back(b, i, &ch);
        r[nr] = ch;
        off[nr] = i;
        nr++;
    }
    Py_ssize_t len = 0;
    const char *stops = "?#&";
    if (rg) {
        len = resolver_back(r, nr, "doi.o", 1);
    } else {
        len = resolver_back(r, nr, "doi.org/", 1);
        if (len == 0)
            len = resolver_back(r, nr, "hdl.handle.net/", 0);
        if (len == 0) {
            Py_ssize_t u = 0;
            if ((rlit_a(r, nr, 0, "urn:doi:") && (u = 8)) || (rlit_a(r, nr, 0, "info:doi/") && (u = 9))) {
                if (!(u < nr && a_alnum(r[u])))
                    len = u;
                stops = (len && (r[u - 1] | 0x20) == 'u') ? "?#" : "";
            }
            if (len == 0) {
                stops = "";
                Py_ssize_t j = 0;
                while (j < nr && (r[j] == ' ' || r[j] == '\t'))
                    j++;
                if (j < nr && (r[j] == ':' || r[j] == 0xFF1A || r[j] == '='))
                    j++;
                while (j < nr && (r[j] == ' ' || r[j] == '\t'))
                    j++;
                if (rlit_a(r, nr, j, "doi") && j + 3 <= SHORT_LEFT &&
                    !(j + 3 < nr && (a_alnum(r[j + 3]) || r[j + 3] == '/' || r[j + 3] == '.' || r[j + 3] == '%' || r[j + 3] == '-')))
                    len = j + 3;
            }
        }
    }
    if (len == 0 || !short_rest_ok(B, e, stops))
        return 0;
    cp_t name[3 + 64];
    name[0] = '1', name[1] = '0', name[2] = '/';
    for (Py_ssize_t t = 0; t < cn; t++)
        name[3 + t] = b[c + t];
    return emit(k, B, off[len - 1], e, F_SHORT_DOI, name, 3 + cn);
}

/* matcher._doi_parameter: the DOI at p is a URL's `doi=` query parameter, which introduces a DOI
 * as a label does (`search?doi=10.77/8801&lang=en`). */
static inline int doi_parameter(const Buf *B, Py_ssize_t p, int form)
{
    const unsigned char *b = B->b;
    return form == F_OTHER_URL && p >= 4 && (b[p - 4] | 0x20) == 'd' && (b[p - 3] | 0x20) == 'o' &&
           (b[p - 2] | 0x20) == 'i' && b[p - 1] == '=';
}

/* The display form of the DOI whose anchor is at p — "10.", `first` digits of the registrant's
 * first part, separator `sep` — and where its display text starts, or -1 when it is no DOI
 * (find._Scanner.scan; spec §2). */
static inline int anchor_form(const Buf *B, Py_ssize_t p, char sep, Py_ssize_t first, int pdf, Py_ssize_t *startp)
{
    int form = left_context(B, p, startp, pdf);
    if (form < 0 || (sep == ':' && form != F_EIDR_URN))
        return -1;
    if (form == F_EIDR_URN && sep != ':')
        form = F_URN;
    if (!IS_LABELLED(form) && first < 4 && !doi_parameter(B, p, form))
        return -1; /* bare 10.2.1/, 10.5/100 and IP ranges are not DOIs */
    if (form == F_BARE && sep != '/')
        form = F_PERCENT;
    return form;
}

/* find._Scanner._empty_suffix: the suffix from q opens with a closing bracket, unbalanced, or
 * with a comma or semicolon before the next DOI (rules.SPLIT), so it is empty whatever the form
 * (spec §4) — told before the left context. Not for an anchor so long that its candidate may be
 * counted too long. */
static inline int empty_suffix(const Buf *B, Py_ssize_t p, Py_ssize_t q)
{
    if (q >= B->n || q - p > MAX_DOI_CHARS + SHORT_WINDOW - 1)
        return 0;
    cp_t c;
    Py_ssize_t i = q + dec(B->b, B->n, q, &c);
    if (c != ',' && c != ';')
        return opener_of(c) != 0;
    cp_t t[32]; /* the lookahead, within the run */
    Py_ssize_t m = 0;
    while (m < 32 && i < B->n) {
        i += dec(B->b, B->n, i, &t[m]);
        if (run_end(t[m]))
            break;
        if (t[m++] == '/')
            break; /* the lookahead ends at its first '/' */
    }
    return split_ahead(t, m, 0);
}

/* A candidate at p that no rule ends within MAX_DOI_CHARS, dropped with its token up to `skip`
 * (spec §4: counted, never truncated): counted when it is the sink's to report, and the skip
 * carried on by a window reader when the token runs past the buffer. 0, or -1 on an error. */
static int drop_token(Sink *k, Py_ssize_t p, Py_ssize_t skip)
{
    k->too_long += p >= k->lo && p < k->hi && p >= k->rlo && p < k->rhi;
    if (p < k->lo || p >= k->hi)
        return 0;
    if (skip > k->last_end)
        k->last_end = skip;
    if (k->dropped == NULL)
        return 0;
    PyObject *t = Py_BuildValue("(nn)", p, skip);
    int bad = t == NULL || PyList_Append(k->dropped, t) < 0;
    Py_XDECREF(t);
    return bad ? -1 : 0;
}

/* Where the name in s[0:L] (the anchor's A characters, then what follows) ends, as find._extend
 * ends it — the text from `start` to the anchor at p is the URL before it; `cut` is first_cut
 * when known, else -1; in `pdf` text a page number glued to the name is cut off
 * (pdf.glued_page_end). *n_raw: that end in s (the hit's end in the text). Returns the name's
 * length once EIDR's ":" is read as "/" and a shields.io badge's escapes are undone, 0 when the
 * suffix is empty, -1 on an error. */
static Py_ssize_t glued_page_end(const cp_t *s, Py_ssize_t n, Py_ssize_t A); /* cscan/pdf.c */

static inline Py_ssize_t finish_name(const Buf *B, cp_t *s, Py_ssize_t L, Py_ssize_t A, int form, Py_ssize_t start, Py_ssize_t p,
                              Py_ssize_t cut, int pdf, Py_ssize_t *n_raw)
{
    cp_t ub[LEFT_WINDOW + 8];
    Py_ssize_t ubn = 0;
    if (IS_URL(form))
        for (Py_ssize_t i = start; i < p && ubn < LEFT_WINDOW + 4;)
            i += dec(B->b, p, i, &ub[ubn++]);
    Py_ssize_t nn = end_of_name(s, L, form, ub, ubn, cut);
    if (pdf && (nn = glued_page_end(s, nn, A)) < 0)
        return -1;
    *n_raw = nn;
    if (nn <= A)
        return 0;
    if (form == F_EIDR_URN) {
        for (Py_ssize_t t = 0; t < nn; t++)
            if (s[t] == ':') {
                s[t] = '/';
                break;
            }
    }
    if (IS_URL(form) && !IS_RESOLVER(form) && shields(ub, ubn))
        nn = shields_unescape(s, nn);
    return nn;
}

/* scan() with its run buffers: the run read after an anchor (s) and its byte offsets (bo), of
 * RUN_CAP each. */
static int scan_in(const Buf *B, Sink *k, cp_t *s, Py_ssize_t *bo)
{
    /* what the anchors' left contexts learn of the text, carried from one to the next */
    LeftCache lc = {0, 0, 0, -1};
    Buf cached = *B;
    if (cached.lc == NULL)
        cached.lc = &lc;
    B = &cached;
    const unsigned char *b = B->b;
    /* Anchors before lo are passed over, as after a hit that ended there: a window resumes
     * where the hits of the window before it ended, with the whole text's phase */
    Py_ssize_t n = B->n, pos = 0, last_end = k->lo;
    while ((pos = next_anchor(b, n, pos)) >= 0) {
        Py_ssize_t p = pos, j = p + 3, first = 0;
        if (b[p + 2] != '.') {
            if (short_at(B, k, p) < 0)
                return -1;
            pos = p + 3;
            continue;
        }
        while (j < n && is_digit(b[j]))
            j++, first++;
        if (first == 0) {
            pos = p + 1;
            continue;
        }
        while (j + 1 < n && b[j] == '.' && is_digit(b[j + 1])) {
            j++;
            while (j < n && is_digit(b[j]))
                j++;
        }
        char sep;
        Py_ssize_t q;
        if (j < n && b[j] == '/')
            sep = '/', q = j + 1;
        else if (j + 2 < n && b[j] == '%' && b[j + 1] == '2' && (b[j + 2] == 'F' || b[j + 2] == 'f'))
            sep = '%', q = j + 3;
        else if (j < n && b[j] == ':')
            sep = ':', q = j + 1;
        else {
            /* every anchor inside the run ends at j too, before the same byte, and fails the
             * same way: passed over whole, so "10.10.10…" costs linear time */
            pos = j;
            continue;
        }
        pos = q;
        if (p < last_end || empty_suffix(B, p, q))
            continue;
        Py_ssize_t start;
        int form = anchor_form(B, p, sep, first, 0, &start);
        if (form < 0)
            continue;
        /* _extend: the anchor, then the run after it (at offset 0 when the anchor alone is
         * too long for a name: only whether the token is skipped matters then) */
        Py_ssize_t A = q - p, off = A > MAX_LOGICAL ? 0 : A, qq, skip, cut;
        int mine = p >= k->lo && p < k->hi && p >= k->rlo && p < k->rhi;
        Py_ssize_t have = read_run(B, q, s, bo, off, form, &qq, &skip, &cut, 1);
        if (have < 0) {
            last_end = skip; /* dropped with the rest of its token, never truncated */
            if (drop_token(k, p, skip) < 0)
                return -1;
            continue;
        }
        Py_ssize_t L = A + have;
        if (L > MAX_LOGICAL) {
            k->too_long += mine;
            continue;
        }
        for (Py_ssize_t t = 0; t < A; t++) {
            s[t] = b[p + t];
            bo[t] = p + t;
        }
        bo[L] = qq; /* the byte after the last character read */
        Py_ssize_t raw, nn = finish_name(B, s, L, A, form, start, p, cut < 0 ? -1 : A + cut, 0, &raw);
        if (nn == 0)
            continue;
        Py_ssize_t end = bo[raw];
        last_end = end;
        if (emit(k, B, start, end, form, s, nn) < 0)
            return -1;
    }
    return 0;
}

/* Every DOI of B (plain text rules) to the sink k. The run buffers are per call, not static:
 * scans may then run at once (threads without the GIL, subinterpreters). */
static int scan(const Buf *B, Sink *k)
{
    cp_t *s = PyMem_Malloc(sizeof(cp_t) * RUN_CAP);
    Py_ssize_t *bo = PyMem_Malloc(sizeof(Py_ssize_t) * RUN_CAP);
    int rc = -1;
    if (s == NULL || bo == NULL)
        PyErr_NoMemory();
    else
        rc = scan_in(B, k, s, bo);
    PyMem_Free(s);
    PyMem_Free(bo);
    return rc;
}

/* The newlines of the data from the line position the sink started at to line_to, on from where
 * the hits' count stopped: each byte counted once (-1 without line numbers or line_to). */
static long long newlines_to(Sink *k, const Buf *B, Py_ssize_t line_to)
{
    if (k->line_base < 0 || line_to < 0)
        return -1;
    if (line_to >= k->lb)
        k->lc += count_newlines(B->b, k->lb, line_to);
    else
        k->lc -= count_newlines(B->b, line_to, k->lb);
    k->lb = line_to;
    return (long long)k->lc;
}
