/* ---- PDF text (spec §5): find._Scanner with pdf=True, and pdf.join_pieces -------------------
 * (this file: the rules, the evidence and the joins; cscan/pdfscan.c: the scan that applies them)
 *
 * The plain scan's anchor, left-context, end and key rules, with what PDF extraction adds: a
 * space or one line break inside the prefix ("10. 1016/", "10.\n1371/"), resolvers broken across
 * a line, and DOIs joined across line breaks, column gaps and spaces where the evidence says the
 * break is inside the DOI. Like find._hits, a window is read once and, when some break was left
 * unjoined on a guess, read again with what the document says about its own DOIs (pdf.Evidence:
 * the sets of its keys, shapes and parent keys, and its page numbers). Positions are bytes; the
 * rules that count characters (columns, line and token bounds) count them. tests/test_cscan.py
 * holds the result to find_spans(…, "pdf").
 */


/* Hits of one pass, with their names' characters, kept for the second pass and for ordering. */
typedef struct {
    Py_ssize_t start, end, name, len;
    int form;
} PHit;

typedef struct PFound {
    PHit *hit;
    Py_ssize_t n, cap;
    cp_t *names;
    Py_ssize_t nn, ncap;
    Py_ssize_t *unc; /* starts of DOIs that ended at a break left unjoined on a guess */
    Py_ssize_t nu, ucap;
} PFound;

static void pfound_free(PFound *f)
{
    PyMem_Free(f->hit);
    PyMem_Free(f->names);
    PyMem_Free(f->unc);
    memset(f, 0, sizeof(*f));
}

/* Grow *p (of *cap elements of `size` bytes) to hold at least `need`. */
static int reserve(void **p, Py_ssize_t *cap, Py_ssize_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    Py_ssize_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    if (grow(p, c, size) < 0)
        return -1;
    *cap = c;
    return 0;
}

static int collect_hit(PFound *f, Py_ssize_t start, Py_ssize_t end, int form, const cp_t *name, Py_ssize_t nn)
{
    if (reserve((void **)&f->hit, &f->cap, f->n + 1, sizeof(PHit)) < 0 ||
        reserve((void **)&f->names, &f->ncap, f->nn + nn, sizeof(cp_t)) < 0)
        return -1;
    memcpy(f->names + f->nn, name, sizeof(cp_t) * (size_t)nn);
    f->hit[f->n++] = (PHit){start, end, f->nn, nn, form};
    f->nn += nn;
    return 0;
}

/* ---- characters and tokens of the PDF rules ---- */

/* The byte after `k` characters from byte i (or the end). */
static Py_ssize_t chars_on(const Buf *B, Py_ssize_t i, Py_ssize_t k)
{
    cp_t c;
    while (k-- > 0 && i < B->n)
        i += B->b[i] < 0x80 ? 1 : dec(B->b, B->n, i, &c);
    return i;
}

/* The byte `k` characters before byte i (or 0). */
static Py_ssize_t chars_back(const Buf *B, Py_ssize_t i, Py_ssize_t k)
{
    cp_t c;
    while (k-- > 0 && i > 0)
        i -= dec_back(B->b, i, &c);
    return i;
}

/* text.find("\n", i, i + MAX_LINE characters): its byte, or -1. */
static Py_ssize_t find_nl(const Buf *B, Py_ssize_t i)
{
    Py_ssize_t k = 0;
    cp_t c;
    while (i < B->n && k < MAX_LINE) {
        if (B->b[i] == '\n')
            return i;
        i += B->b[i] < 0x80 ? 1 : dec(B->b, B->n, i, &c);
        k++;
    }
    return -1;
}

/* The characters of the token at byte i (pdf._NEXT_TOKEN: [^\s"]{1,300}) into t; how many. */
static Py_ssize_t next_token(const Buf *B, Py_ssize_t i, cp_t *t)
{
    Py_ssize_t m = 0;
    while (i < B->n && m < NEXT_TOKEN) {
        cp_t c;
        int k = dec(B->b, B->n, i, &c);
        if (c == '"' || is_space(c))
            break;
        t[m++] = c;
        i += k;
    }
    return m;
}

/* [ \t]*\r?\n[ \t]* at byte i: the byte after it, or -1 (pdf._LINEBREAK). */
static Py_ssize_t line_break(const Buf *B, Py_ssize_t i)
{
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n;
    while (i < n && (b[i] == ' ' || b[i] == '\t'))
        i++;
    if (i < n && b[i] == '\r')
        i++;
    if (!(i < n && b[i] == '\n'))
        return -1;
    i++;
    while (i < n && (b[i] == ' ' || b[i] == '\t'))
        i++;
    return i;
}

/* A run of 3+ spaces or TABs in bytes [i, stop) (pdf._GAP.search). */
static int has_gap(const Buf *B, Py_ssize_t i, Py_ssize_t stop)
{
    Py_ssize_t run = 0;
    for (; i < stop; i++) {
        if (B->b[i] == ' ' || B->b[i] == '\t') {
            if (++run >= 3)
                return 1;
        } else {
            run = 0;
        }
    }
    return 0;
}

/* Word characters of \b (str.isalnum and "_"). */
static inline int word_char(cp_t c) { return c == '_' || is_alnum(c); }

/* Whether t[0:m] starts with the literal (lower case, IGNORECASE as re folds). */
#define TLIT(t, m, lit) lit_at((t), (m), 0, (lit))

/* pdf._STARTS_NEW.match(token) (`line_start`), or pdf._NEW_ID.match(token): a new label,
 * identifier or URL, and at a line start also a reference number, a bullet or a dash. */
static int starts_new(const cp_t *t, Py_ssize_t m, int line_start)
{
    if (m == 0)
        return 0;
    if (TLIT(t, m, "doi") && (m == 3 || !word_char(t[3]) || t[3] == ':' || t[3] == 0xFF1A))
        return 1;
    for (int p = 0; p <= 1; p++) { /* p?mid\b, pmid[:：] */
        if (p && !ci(t[0], 'p'))
            break;
        if (lit_at(t, m, p, "mid") && (m == p + 3 || !word_char(t[p + 3]) || (p && (t[4] == ':' || t[4] == 0xFF1A))))
            return 1;
    }
    if (TLIT(t, m, "pmcid") || TLIT(t, m, "https:") || TLIT(t, m, "http:") || TLIT(t, m, "www.") || TLIT(t, m, "urn:") ||
        TLIT(t, m, "info:") || TLIT(t, m, "isbn") || TLIT(t, m, "issn") || TLIT(t, m, "arxiv"))
        return 1;
    if (TLIT(t, m, "10.")) {
        Py_ssize_t d = 0;
        while (3 + d < m && (line_start ? is_decimal(t[3 + d]) : is_digit(t[3 + d])))
            d++;
        if (d >= 4)
            return 1;
    }
    if (!line_start)
        return 0;
    if (TLIT(t, m, "pubmed") || TLIT(t, m, "medline") || (TLIT(t, m, "pmc") && m > 3 && is_decimal(t[3])))
        return 1;
    if ((t[0] == '[' || t[0] == '(') && m > 1 && is_decimal(t[1])) {
        if (t[0] == '[')
            return 1; /* \[\d+\]? */
        Py_ssize_t j = 1;
        while (j < m && is_decimal(t[j]))
            j++;
        if (j < m && t[j] == ')')
            return 1;
    }
    if (m >= 2 && m <= 5) { /* \d{1,4}[.)\]]\Z */
        Py_ssize_t j = 0;
        while (j < m - 1 && is_decimal(t[j]))
            j++;
        if (j == m - 1 && (t[j] == '.' || t[j] == ')' || t[j] == ']'))
            return 1;
    }
    return t[0] == 0x2022 || t[0] == 0xB7 || t[0] == 0x25AA || t[0] == 0x2013 || t[0] == 0x2014;
}

/* pdf._DOI_CHAR_START: [0-9A-Za-z(\[<_-] */
static inline int doi_char_start(cp_t c) { return c < 128 && (is_alnum(c) || c == '(' || c == '[' || c == '<' || c == '_' || c == '-'); }

static int has_ascii_digit(const cp_t *t, Py_ssize_t m)
{
    for (Py_ssize_t j = 0; j < m; j++)
        if (is_digit(t[j]))
            return 1;
    return 0;
}

/* pdf._PAGE_NUMBER.match at byte i of a string ending at byte `stop`: a number without a
 * leading zero alone on its line (1), or before a running header ("154 A. Sundström": 2). */
static int page_number(const Buf *B, Py_ssize_t i, Py_ssize_t stop)
{
    const unsigned char *b = B->b;
    if (!(i < stop && b[i] >= '1' && b[i] <= '9'))
        return 0;
    Py_ssize_t j = i + 1;
    while (j < stop && is_digit(b[j]))
        j++;
    if (j - i > 4)
        return 0;
    Py_ssize_t k = j;
    while (k < stop && (b[k] == ' ' || b[k] == '\t'))
        k++;
    if (k == stop || b[k] == '\n' || (b[k] == '\r' && k + 1 < stop && b[k + 1] == '\n'))
        return 1;
    return k > j && b[k] >= 'A' && b[k] <= 'Z' ? 2 : 0;
}

/* pdf._CODE_ONLY.fullmatch of the suffix s[a:n]: [A-Za-z]{2,12}\. (a journal's code alone) */
static int code_only(const cp_t *s, Py_ssize_t a, Py_ssize_t n)
{
    if (a < 0 || n - a < 3 || n - a > 13 || s[n - 1] != '.')
        return 0;
    for (Py_ssize_t i = a; i < n - 1; i++)
        if (s[i] >= 128 || !(((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
            return 0;
    return 1;
}

/* pdf._open_bracket: a bracket opened and not closed. */
static int open_bracket(const cp_t *s, Py_ssize_t n)
{
    Py_ssize_t depth = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (opener(s[i]))
            depth++;
        else if (opener_of(s[i]) && depth)
            depth--;
    }
    return depth > 0;
}

static int has_opener(const cp_t *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (opener(s[i]))
            return 1;
    return 0;
}

/* Where pdf._suffix starts: after the first "/" or "%2F", or -1 (still in the prefix). */
static Py_ssize_t suffix_at(const cp_t *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] == '/')
            return i + 1;
        if (s[i] == '%' && i + 2 < n && s[i + 1] == '2' && (s[i + 2] == 'F' || s[i + 2] == 'f'))
            return i + 3;
    }
    return -1;
}

/* pdf._ISSN_END: [0-9]{4}-[0-9]{3}[0-9Xx]\Z */
static int issn_end(const cp_t *s, Py_ssize_t n)
{
    if (n < 9)
        return 0;
    const cp_t *e = s + n - 9;
    for (int j = 0; j < 9; j++) {
        int ok = j == 4 ? e[j] == '-' : j == 8 ? (is_digit(e[j]) || e[j] == 'X' || e[j] == 'x') : is_digit(e[j]);
        if (!ok)
            return 0;
    }
    return 1;
}

/* pdf._PROSE_WORD: [A-Z]?[a-z]+(?:-[A-Z]?[a-z]+)*\Z */
static int prose_word(const cp_t *w, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (;;) {
        if (i < m && w[i] >= 'A' && w[i] <= 'Z')
            i++;
        Py_ssize_t a = i;
        while (i < m && w[i] >= 'a' && w[i] <= 'z')
            i++;
        if (i == a)
            return 0;
        if (i == m)
            return 1;
        if (w[i] != '-')
            return 0;
        i++;
    }
}

/* breaks.VIEW_TAIL.search(s) starting before `before`: a publisher's view segment at the end. */
static int view_tail(const cp_t *s, Py_ssize_t n, Py_ssize_t before)
{
    const char *const *W = PDF_VIEW_SEGMENTS;
    Py_ssize_t e = n && s[n - 1] == '/' ? n - 1 : n;
    for (int w = 0; W[w]; w++) {
        Py_ssize_t L = (Py_ssize_t)strlen(W[w]), at = e - L - 1;
        if (at >= 0 && s[at] == '/' && lit_at(s, e, at + 1, W[w]) && at < before)
            return 1;
    }
    return 0;
}

/* pdf._ABBREVIATION_DOT on the suffix s[a:n]: (?:^|[/.])[a-z]{1,12}\.\Z */
static int abbreviation_dot(const cp_t *s, Py_ssize_t a, Py_ssize_t n)
{
    if (n - a < 2 || s[n - 1] != '.')
        return 0;
    Py_ssize_t i = n - 1;
    while (i > a && s[i - 1] >= 'a' && s[i - 1] <= 'z')
        i--;
    Py_ssize_t k = n - 1 - i;
    return k >= 1 && k <= 12 && (i == a || s[i - 1] == '/' || s[i - 1] == '.');
}

/* ---- the PDF key (canonical_key(name, True)) and the document's evidence ---- */


/* The canonical key of a raw name read from PDF text (spec §5): look-alike hyphens read as "-",
 * ligatures expanded, format characters and the spaces a join went across dropped, then the
 * plain key. A new str, or NULL with an exception. */
static PyObject *pdf_key(const cp_t *s, Py_ssize_t n)
{
    static const char *const LIG[] = {"ff", "fi", "fl", "ffi", "ffl"};
    cp_t lt[MAX_LOGICAL + 8], lw[MAX_LOGICAL + 8], lout[MAX_LOGICAL + 8];
    unsigned char lbytes[MAX_LOGICAL / 3 + 4];
    cp_t *t = lt, *w = lw, *out = lout;
    unsigned char *bytes = lbytes;
    PyObject *key = NULL;
    if (3 * n > MAX_LOGICAL) { /* a ligature is up to three characters */
        t = PyMem_Malloc(sizeof(cp_t) * (size_t)(3 * n + 8));
        w = PyMem_Malloc(sizeof(cp_t) * (size_t)(3 * n + 8));
        out = PyMem_Malloc(sizeof(cp_t) * (size_t)(3 * n + 8));
        bytes = PyMem_Malloc((size_t)(n + 4));
        if (t == NULL || w == NULL || out == NULL || bytes == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        cp_t c = s[i];
        if (pdf_hyphen(c))
            t[m++] = '-';
        else if (c >= 0xFB00 && c <= 0xFB04)
            for (const char *l = LIG[c - 0xFB00]; *l; l++)
                t[m++] = (cp_t)*l;
        else if (!format_char(c) && !is_space(c))
            t[m++] = c;
    }
    Py_ssize_t o = canonical_in(t, m, out, w, bytes);
    key = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, o);
done:
    if (t != lt) {
        PyMem_Free(t);
        PyMem_Free(w);
        PyMem_Free(out);
        PyMem_Free(bytes);
    }
    return key;
}

/* pdf.shape_of: the registrant prefix and the suffix's classes (10.1371/aaaaaaa.aaaa.9999999). */
static PyObject *shape_of(PyObject *key)
{
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(key, &n);
    if (u == NULL)
        return NULL;
    char *t = PyMem_Malloc((size_t)n + 2);
    if (t == NULL)
        return PyErr_NoMemory();
    const char *slash = memchr(u, '/', (size_t)n);
    Py_ssize_t a = slash ? slash - u + 1 : n, m = a;
    memcpy(t, u, (size_t)a);
    if (!slash)
        t[m++] = '/';
    for (Py_ssize_t i = a; i < n; i++)
        t[m++] = is_digit((unsigned char)u[i]) ? '9' : (u[i] >= 'a' && u[i] <= 'z') ? 'a' : u[i];
    PyObject *r = PyUnicode_DecodeUTF8(t, m, "strict");
    PyMem_Free(t);
    return r;
}

/* Whether some rule of hyphens.DEHYPHENATION_RULES may rewrite the key u[0:n] (ASCII-folded; every
 * rule ignores case): a prefilter that lets through every key a rule could touch, so that the
 * Python rules run only for those. One clause per rule, in the table's order; DEHYPHENATION_RULES
 * (their count is checked by native.py) and the examples of tests/test_cscan.py keep it whole. */
#define N_DEHYPHENATION_RULES 32
static int may_rehyphenate(const char *u, Py_ssize_t n)
{
    const char *slash = memchr(u, '/', (size_t)n);
    if (slash == NULL)
        return 0;
    const char *x = slash + 1, *end = u + n;
    Py_ssize_t sn = end - x;
    for (const char *c = u; c < end; c++)
        if ((unsigned char)*c >= 0x80)
            return 1; /* not ASCII: let the rules (all ASCII) tell, a key this rare */
#define AT(i) ((i) < sn ? x[i] : 0)
#define DIGIT(c) ((c) >= '0' && (c) <= '9')
    if (DIGIT(AT(0)))
        return 1; /* ISSN runs (0, 13), Lippincott's blocks (10), an ISBN's chapters (6, 7, 8) */
    if (sn >= 6 && memcmp(x, "(sici)", 6) == 0)
        return 1; /* 0 */
    if ((AT(0) == 's' || AT(0) == 'd') && DIGIT(AT(1)))
        return 1; /* 0, Springer and Nature (3, 4, 5) */
    if (AT(0) == 'j' && AT(1) == '.' && DIGIT(AT(2)))
        return 1; /* Blackwell (1) */
    if (memchr(x, '>', (size_t)sn) || memchr(x, '(', (size_t)sn))
        return 1; /* the SICI check (2), Elsevier's item number (12) */
    for (const char *c = x; c + 5 <= end; c++)
        if (c[0] == ':' && c[1] == ':' && c[2] == 'a' && c[3] == 'i' && c[4] == 'd')
            return 1; /* a SICI contribution id (11) */
    if (slash - u == 7 && (memcmp(u, "10.1055", 7) == 0 || memcmp(u, "10.1146", 7) == 0 || memcmp(u, "10.3760", 7) == 0 ||
                           memcmp(u, "10.1139", 7) == 0 || memcmp(u, "10.4244", 7) == 0 || memcmp(u, "10.1136", 7) == 0 ||
                           memcmp(u, "10.3233", 7) == 0 || memcmp(u, "10.1210", 7) == 0 || memcmp(u, "10.1563", 7) == 0))
        return 1; /* Thieme, Annual Reviews, the CMA (14-16), CSP, EuroIntervention, the BMJ (17-21),
                   * IOS Press (23), the Endocrine Society (26, 27), J Oral Implantol (29); the suffixes
                   * of 10.3181, AACR, Ann Intern Med and Br J Radiol (24, 25, 28, 30, 31) start with a
                   * digit */
    for (const char *c = x; c + 6 <= end; c++)
        if (memcmp(c, ".issn.", 6) == 0)
            return 1; /* an ISSN named as one (22) */
    if (sn >= 16 && sn <= 19) { /* Baywood/SAGE's four blocks of four, two dashes at least (9) */
        int dashes = 0, other = 0;
        for (const char *c = x; c < end; c++) {
            if (*c == '-')
                dashes++;
            else if (!(DIGIT(*c) || (*c >= 'a' && *c <= 'z')))
                other = 1;
        }
        if (dashes >= 2 && !other)
            return 1;
    }
#undef AT
#undef DIGIT
    return 0;
}

/* A document's page numbers (evidence.page_numbers), read from its text when first asked. */
#define MAX_PAGE 9999
typedef struct {
    unsigned char *flags; /* flags[N]: N is one of them */
    PyObject *set;        /* the same as a frozenset, for the far joins */
    int paged, read;      /* some number is one; the text was read */
} Pages;

static void pages_free(Pages *pg)
{
    PyMem_Free(pg->flags);
    Py_CLEAR(pg->set);
    memset(pg, 0, sizeof(*pg));
}

/* Read the page numbers of the text once. 0, or -1 with an exception. */
static int pages_read(Pages *pg, const Buf *B)
{
    if (pg->read)
        return 0;
    /* [0, MAX_PAGE]: a number alone on its line; above: a running header's number */
    unsigned char *seen = PyMem_Calloc(2 * (MAX_PAGE + 1), 1), *alone = seen, *header = seen + MAX_PAGE + 1;
    pg->flags = PyMem_Calloc(MAX_PAGE + 1, 1);
    if (seen == NULL || pg->flags == NULL) {
        PyMem_Free(seen);
        PyErr_NoMemory();
        return -1;
    }
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n;
    for (Py_ssize_t a = 0; a < n;) {
        const unsigned char *nl = memchr(b + a, '\n', (size_t)(n - a));
        Py_ssize_t z = nl == NULL ? n : nl - b, i = a;
        while (i < z && (b[i] == ' ' || b[i] == '\t' || b[i] == '\f'))
            i++;
        Py_ssize_t j = i;
        int num = 0;
        while (j < z && j - i < 5 && is_digit(b[j]))
            num = num * 10 + (b[j++] - '0');
        if (j > i && j - i <= 4 && b[i] != '0' && (j == z || !is_digit(b[j]))) {
            Py_ssize_t k = j;
            while (k < z && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\f'))
                k++;
            if (k == z) {
                alone[num] = 1;
            } else {
                for (k = j; k < z && (b[k] == ' ' || b[k] == '\t');)
                    k++;
                if (k > j && k < z && b[k] >= 'A' && b[k] <= 'Z')
                    header[num] = 1;
            }
        }
        a = z + 1;
    }
    PyObject *set = PySet_New(NULL);
    int bad = set == NULL;
    for (int x = 1; x <= MAX_PAGE && !bad; x++) {
        int near = (x > 1 && (alone[x - 1] || header[x - 1])) || (x < MAX_PAGE && (alone[x + 1] || header[x + 1]));
        if (alone[x] && (header[x] || near)) {
            pg->flags[x] = 1, pg->paged = 1;
            PyObject *num = PyLong_FromLong(x);
            bad = num == NULL || PySet_Add(set, num) < 0;
            Py_XDECREF(num);
        }
    }
    PyMem_Free(seen);
    if (!bad)
        pg->set = PyFrozenSet_New(set);
    Py_XDECREF(set);
    if (bad || pg->set == NULL)
        return -1;
    pg->read = 1;
    return 0;
}

/* What a document says about its own DOIs (pdf.Evidence), with its page numbers. */
typedef struct {
    PyObject *dois, *shapes, *parents;
    Pages *pages;
} Evidence;

static void evidence_free(Evidence *ev)
{
    Py_CLEAR(ev->dois);
    Py_CLEAR(ev->shapes);
    Py_CLEAR(ev->parents);
}

/* Evidence.add(key, certain) */
static int evidence_add(Evidence *ev, PyObject *key, int certain)
{
    if (PySet_Add(ev->dois, key) < 0)
        return -1;
    if (certain) {
        PyObject *shape = shape_of(key);
        int bad = shape == NULL || PySet_Add(ev->shapes, shape) < 0;
        Py_XDECREF(shape);
        if (bad)
            return -1;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(key, &n);
    if (u == NULL)
        return -1;
    const char *slash = memchr(u, '/', (size_t)n);
    Py_ssize_t i = slash ? slash - u + 1 : 0; /* from the second character after the first "/" */
    if (i < n)
        i += utf8_len((unsigned char)u[i]) ? utf8_len((unsigned char)u[i]) : 1;
    for (; i < n; i++)
        if (u[i] == '.' || u[i] == '/') {
            PyObject *parent = PyUnicode_DecodeUTF8(u, i, "strict");
            int bad = parent == NULL || PySet_Add(ev->parents, parent) < 0;
            Py_XDECREF(parent);
            if (bad)
                return -1;
        }
    return 0;
}

/* The key of the name a string would give alone (pdf._key(pdf._complete_name(s))). */
static PyObject *complete_key(const cp_t *s, Py_ssize_t n) { return pdf_key(s, end_of_name(s, n, F_BARE, NULL, 0, -1)); }

/* The set of shapes holds the shape of `key` (NULL: an error already set); 1, 0 or -1. */
static int shape_in(PyObject *shapes, PyObject *key)
{
    PyObject *shape = key == NULL ? NULL : shape_of(key);
    int r = shape == NULL ? -1 : PySet_Contains(shapes, shape);
    Py_XDECREF(shape);
    return r;
}

/* ---- where a broken DOI goes on (pdf._continuation, pdf._new_below) ---- */

/* The columns (characters from byte a) where the blocks of bytes [a, z) start (pdf._SEGMENT:
 * blocks are apart by 3+ spaces or a line end). How many, into *cols (grown as needed). */
static Py_ssize_t block_starts(const Buf *B, Py_ssize_t a, Py_ssize_t z, Py_ssize_t **cols, Py_ssize_t *cap)
{
    const unsigned char *b = B->b;
    Py_ssize_t m = 0, col = 0, i = a;
    int in = 0;
    while (i < z) {
        unsigned char c = b[i];
        if (c == ' ' || c == '\t') {
            Py_ssize_t j = i;
            while (j < z && (b[j] == ' ' || b[j] == '\t'))
                j++;
            if (j - i > 2 || j == z || b[j] == '\n')
                in = 0;
            col += j - i;
            i = j;
            continue;
        }
        if (c == '\n') {
            in = 0;
        } else if (!in) {
            if (reserve((void **)cols, cap, m + 1, sizeof(Py_ssize_t)) < 0)
                return -1;
            (*cols)[m++] = col;
            in = 1;
        }
        cp_t ch;
        i += c < 0x80 ? 1 : dec(b, z, i, &ch);
        col++;
    }
    return m;
}

/* pdf._line_start: where the line holding byte i starts, its newline looked for in the MAX_LINE
 * characters before (0 when none is). */
static Py_ssize_t line_start_of(const Buf *B, Py_ssize_t i)
{
    /* a newline within MAX_LINE bytes is within MAX_LINE characters (one is a byte or more): the
     * characters are counted only past those bytes, on a line that long */
    Py_ssize_t k = i, near = i > MAX_LINE ? i - MAX_LINE : 0;
    for (; k > near; k--)
        if (B->b[k - 1] == '\n')
            return k;
    if (near == 0)
        return 0;
    for (Py_ssize_t back = chars_back(B, i, MAX_LINE); k > back; k--)
        if (B->b[k - 1] == '\n')
            return k;
    return 0;
}

typedef struct {
    Py_ssize_t *here, *below, *above;
    Py_ssize_t hcap, bcap, acap;
} BlockColumns;

/* pdf._continuation: the byte where the rest of a DOI that stops at byte `at` starts — on the
 * next line, in the DOI's own column — or -1; -2 on an error. */
static Py_ssize_t continuation(const Buf *B, Py_ssize_t at, BlockColumns *C)
{
    Py_ssize_t lb = line_break(B, at), after_gap = -1, nl;
    if (lb < 0) {
        Py_ssize_t g = at;
        while (g < B->n && (B->b[g] == ' ' || B->b[g] == '\t'))
            g++;
        if (g - at < 3 || g >= B->n || B->b[g] == '\r' || B->b[g] == '\n')
            return -1;
        nl = find_nl(B, g);
        after_gap = g;
    } else {
        nl = find_nl(B, at);
    }
    if (nl < 0)
        return -1;
    Py_ssize_t line_start = line_start_of(B, at);
    Py_ssize_t nh = block_starts(B, line_start, at, &C->here, &C->hcap);
    Py_ssize_t next_start = nl + 1, next_end = find_nl(B, next_start);
    if (next_end < 0)
        next_end = chars_on(B, next_start, MAX_LINE);
    Py_ssize_t nb = nh < 0 ? -1 : block_starts(B, next_start, next_end, &C->below, &C->bcap);
    if (nb < 0)
        return -2;
    if (nb == 0 || nh == 0)
        return -1; /* a blank line: a paragraph or page break ends the DOI */
    const Py_ssize_t *here = C->here, *below = C->below;
    if (after_gap >= 0) {
        Py_ssize_t gap_col = 0;
        for (Py_ssize_t i = line_start; i < after_gap;) {
            cp_t ch;
            i += B->b[i] < 0x80 ? 1 : dec(B->b, B->n, i, &ch);
            gap_col++;
        }
        int seen = 0;
        for (Py_ssize_t j = 0; j < nb && !seen; j++)
            seen = below[j] - gap_col <= COLUMN_SLACK && gap_col - below[j] <= COLUMN_SLACK;
        if (!seen && line_start > 0) { /* pdf._line_above: the boundary seen on the line above */
            Py_ssize_t end = line_start - 1;
            Py_ssize_t na = block_starts(B, line_start_of(B, end), end, &C->above, &C->acap);
            if (na < 0)
                return -2;
            for (Py_ssize_t j = 0; j < na && !seen; j++)
                seen = C->above[j] - gap_col <= COLUMN_SLACK && gap_col - C->above[j] <= COLUMN_SLACK;
        }
        if (!seen)
            return -1;
    }
    for (Py_ssize_t h = nh - 1; h >= 0; h--)
        for (Py_ssize_t j = 0; j < nb; j++)
            if (below[j] - here[h] <= COLUMN_SLACK && here[h] - below[j] <= COLUMN_SLACK)
                return chars_on(B, next_start, below[j]);
    if (lb >= 0 && nh == 1 && below[0] - here[0] <= HANGING_INDENT && here[0] - below[0] <= HANGING_INDENT)
        return chars_on(B, next_start, below[0]);
    return -1;
}

/* pdf._new_below: the DOI stops at a line end and the next line, one block, starts something
 * new — decided without the column search. */
static int new_below(const Buf *B, Py_ssize_t at)
{
    Py_ssize_t i = line_break(B, at);
    if (i < 0)
        return 0;
    cp_t t[NEXT_TOKEN];
    Py_ssize_t m = next_token(B, i, t);
    if (m == 0 || t[0] == '(' || !starts_new(t, m, 1))
        return 0;
    Py_ssize_t nl = find_nl(B, i);
    return !has_gap(B, i, nl >= 0 ? nl : chars_on(B, i, MAX_LINE));
}

/* pdf._BOX_BREAK: [ \t]*\r?\n[ \t]*\r?\n[ \t]*(?=\S) at byte i: the byte after it, or -1. */
static Py_ssize_t box_break(const Buf *B, Py_ssize_t i)
{
    i = line_break(B, i);
    if (i < 0)
        return -1;
    i = line_break(B, i);
    if (i < 0 || i >= B->n)
        return -1;
    cp_t c;
    dec(B->b, B->n, i, &c);
    return is_space(c) ? -1 : i;
}

/* pdf._space_join: a space or TAB after the DOI piece s[0:n] is inside the DOI, t[0:m] its rest. */
static int space_join(const cp_t *s, Py_ssize_t n, const cp_t *t, Py_ssize_t m)
{
    cp_t last = s[n - 1];
    int inside;
    if (last == '>') {
        int lt = 0;
        for (Py_ssize_t i = 0; i < n && !lt; i++)
            lt = s[i] == '<';
        /* pdf._SICI_CHECK: [0-9]\.[0-9]\.CO;[0-9] */
        inside = lt && m >= 8 && is_digit(t[0]) && t[1] == '.' && is_digit(t[2]) && t[3] == '.' && ci(t[4], 'c') &&
                 ci(t[5], 'o') && t[6] == ';' && is_digit(t[7]);
    } else if (last == '.') {
        Py_ssize_t a = suffix_at(s, n);
        inside = abbreviation_dot(s, a < 0 ? n : a, n);
    } else {
        inside = last == '-' || last == '/' || (has_opener(s, n) && open_bracket(s, n));
    }
    return inside && doi_char_start(t[0]) && has_ascii_digit(t, m) && !starts_new(t, m, 0);
}

/* breaks._rest_by_evidence: whether the document's own DOIs join s[0:n] and s[n:n+m] (the joined
 * DOI is one of them, or its shape is theirs and the piece's alone is not). 0/1, -1 on an error. */
static int rest_by_evidence(cp_t *s, Py_ssize_t n, Py_ssize_t m, const Evidence *ev)
{
    PyObject *joined = complete_key(s, n + m), *alone = NULL;
    int r = joined == NULL ? -1 : PySet_Contains(ev->dois, joined);
    if (r == 0 && (r = shape_in(ev->shapes, joined)) > 0) {
        int seen = (alone = complete_key(s, n)) == NULL ? -1 : shape_in(ev->shapes, alone);
        r = seen < 0 ? -1 : !seen;
    }
    Py_XDECREF(joined);
    Py_XDECREF(alone);
    return r;
}

/* pdf._decide: whether the DOI s[0:n], broken at a line end, goes on with the token t[0:m]
 * (the next line's text from `line` on); *guess when that was a guess. s has room for n + m
 * more characters (the joined name is built there for the evidence). 0/1, or -1 on an error. */
static int decide(const Buf *B, cp_t *s, Py_ssize_t n, const cp_t *t, Py_ssize_t m, Py_ssize_t line, const Evidence *ev,
                  int *guess)
{
    *guess = 0;
    Py_ssize_t sfx = suffix_at(s, n);
    cp_t last = s[n - 1];
    if (sfx >= 0) {
        if (t[0] == '(' && (issn_end(s, n) || open_bracket(s, n)))
            return 1;
        if (last == 0xAD && doi_char_start(t[0]) && !starts_new(t, m, 1))
            return 1; /* a soft hyphen at a line end: the tool's hyphenation point */
        if (is_alnum(last) && m >= 2 && (t[0] == '-' || t[0] == '_') && t[1] < 128 && is_alnum(t[1]))
            return 1;
        int page = last == '.' ? page_number(B, line, chars_on(B, line, 8)) : 0;
        if (page == 2)
            return 0; /* a page number before a running header */
        if (page && !code_only(s, sfx, n)) {
            /* a number alone: a page number, unless the document's own DOIs show this
             * registrant's DOIs going on so (pdf._rest_by_evidence); a guess until then */
            if (ev == NULL) {
                *guess = 1;
                return 0;
            }
            memcpy(s + n, t, sizeof(cp_t) * (size_t)m);
            int rest = rest_by_evidence(s, n, m, ev);
            if (rest != 0)
                return rest;
            /* the document's pages are numbered, and this is none of their numbers */
            int num = 0;
            for (Py_ssize_t i = 0; i < m && i < 4 && t[i] >= '0' && t[i] <= '9'; i++)
                num = num * 10 + (int)(t[i] - '0');
            if (pages_read(ev->pages, B) < 0)
                return -1;
            return ev->pages->paged && !ev->pages->flags[num];
        }
    }
    if (starts_new(t, m, 1) || !doi_char_start(t[0]))
        return 0;
    if (sfx < 0 || sfx == n)
        return 1; /* the break is inside the prefix or right after it: a DOI goes on */
    memcpy(s + n, t, sizeof(cp_t) * (size_t)m);
    int r = 0;
    PyObject *joined = NULL; /* the key so_far + nxt would give, for the evidence */
    if (ev != NULL) {
        if ((joined = complete_key(s, n + m)) == NULL)
            return -1;
        r = PySet_Contains(ev->dois, joined);
        if (r == 0)
            r = PySet_Contains(ev->parents, joined);
        if (r != 0)
            goto out;
    }
    if (last == '-' || last == '_' || last == '/' || last == '.') {
        Py_ssize_t w = m;
        while (w && (t[w - 1] == '.' || t[w - 1] == ',' || t[w - 1] == ';' || t[w - 1] == ':' || t[w - 1] == ')' || t[w - 1] == ']'))
            w--;
        if (has_ascii_digit(t, w) || (last == '.' && w == 1 && t[0] == 'x'))
            r = 1;
        else if (last == '-' && !prose_word(t, w))
            r = 1; /* a DOI does not end in "-": …-0548- + PDN (APS), an acronym */
        else if (last == '-' && m == 1 && t[0] < 128 && is_alnum(t[0]) &&
                 (line + 1 >= B->n || B->b[line + 1] == '\n' || B->b[line + 1] == '\r'))
            r = 1; /* one character alone on its line: a check character (…90093- + x) */
        else
            *guess = 1;
        goto out;
    }
    if (!is_alnum(last)) {
        *guess = ev == NULL; /* the document's own DOIs could still join it */
        goto out;
    }
    if (view_tail(s, n + m, n)) {
        r = 1; /* a URL broken inside a publisher's view segment (…/abstra + ct) */
        goto out;
    }
    *guess = 1;
    if (ev != NULL && (r = rest_by_evidence(s, n, m, ev)) > 0)
        *guess = 0; /* the shape of this registrant's DOIs joined, and not alone */
out:
    Py_XDECREF(joined);
    return r;
}

/* The logical text of a DOI being joined: its characters, each one's byte, its pieces. */
typedef struct {
    cp_t *s;
    Py_ssize_t *bo, *be; /* byte of each character, and the byte after it */
    Py_ssize_t n, cap;
    Py_ssize_t *pa, *pb; /* pieces: byte spans */
    Py_ssize_t np, pcap;
} Logical;

static int logical_room(Logical *L, Py_ssize_t more)
{
    Py_ssize_t need = L->n + more + NEXT_TOKEN + 8;
    if (need <= L->cap)
        return 0;
    Py_ssize_t c = L->cap, c1 = c, c2 = c;
    if (reserve((void **)&L->s, &c, need, sizeof(cp_t)) < 0 || reserve((void **)&L->bo, &c1, need, sizeof(Py_ssize_t)) < 0 ||
        reserve((void **)&L->be, &c2, need, sizeof(Py_ssize_t)) < 0)
        return -1;
    L->cap = c;
    return 0;
}

static int add_piece(Logical *L, Py_ssize_t a, Py_ssize_t b)
{
    Py_ssize_t c = L->pcap, c1 = L->pcap;
    if (reserve((void **)&L->pa, &c, L->np + 1, sizeof(Py_ssize_t)) < 0 ||
        reserve((void **)&L->pb, &c1, L->np + 1, sizeof(Py_ssize_t)) < 0)
        return -1;
    L->pcap = c;
    L->pa[L->np] = a;
    L->pb[L->np++] = b;
    return 0;
}

/* Append the run (rules.RUN: up to MAX_DOI_CHARS + 1 characters) at byte i as a piece. */
static int add_run(const Buf *B, Logical *L, Py_ssize_t i)
{
    if (logical_room(L, MAX_DOI_CHARS + 2) < 0)
        return -1;
    Py_ssize_t a = i, k = 0;
    while (i < B->n && k <= MAX_DOI_CHARS) {
        cp_t c;
        int w = dec(B->b, B->n, i, &c);
        if (run_end(c))
            break;
        L->s[L->n] = c;
        L->bo[L->n] = i;
        L->be[L->n++] = i + w;
        i += w;
        k++;
    }
    return add_piece(L, a, i);
}

/* pdf.go_far_bytes and what it reads (set_far, from native.py at import): where a DOI cut at a
 * line end goes on farther down, when its registrant's shape (pdf.SHAPES) is not yet whole */
static PyObject *far_call = NULL, *far_prefixes = NULL, *far_ends = NULL, *far_heads = NULL, *far_anchor_call = NULL;
static PyObject *glued_call = NULL;
static PyObject *no_pages = NULL; /* an empty frozenset: no page number the walk would meet */
static Py_ssize_t far_chars = 0;

/* The index in far_prefixes of the prefix s[0:sep], or -1. */
static Py_ssize_t shape_index(const cp_t *s, Py_ssize_t sep)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(far_prefixes); i++) {
        PyObject *p = PyTuple_GET_ITEM(far_prefixes, i);
        if (PyUnicode_GET_LENGTH(p) != sep)
            continue;
        Py_ssize_t k = 0;
        while (k < sep && PyUnicode_READ_CHAR(p, k) == s[k])
            k++;
        if (k == sep)
            return i;
    }
    return -1;
}

/* pdf.glued_page_end for the name s[0:n] of an anchor of A characters, asked only where
 * pdf.glued_gate says it may cut: the registrant's shape has one length of last run, and the
 * last run of digits, or the one before a hyphen and the last, is longer. -1 on an error. */
static Py_ssize_t glued_page_end(const cp_t *s, Py_ssize_t n, Py_ssize_t A)
{
    if (glued_call == NULL || A < 2 || n <= A || s[A - 1] != '/')
        return n;
    Py_ssize_t i = shape_index(s, A - 1);
    if (i < 0)
        return n;
    PyObject *ends = PyTuple_GET_ITEM(far_ends, i);
    if (PyTuple_GET_SIZE(ends) != 1)
        return n;
    Py_ssize_t len = PyLong_AsSsize_t(PyTuple_GET_ITEM(ends, 0));
    Py_ssize_t d = n, c;
    while (d > A && is_digit(s[d - 1]))
        d--;
    c = d;
    if (d > A && d < n && (s[d - 1] == '-' || pdf_hyphen(s[d - 1])))
        for (c = d - 1; c > A && is_digit(s[c - 1]); c--)
            ;
    if (n - d <= len && (c == d || d - 1 - c <= len))
        return n;
    PyObject *name = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s, n);
    PyObject *r = name == NULL ? NULL : PyObject_CallFunction(glued_call, "Onn", name, n, A);
    Py_XDECREF(name);
    Py_ssize_t e = r == NULL ? -1 : PyLong_AsSsize_t(r);
    Py_XDECREF(r);
    return e < 0 || e > n ? -1 : e;
}

/* pdf._CUT_HERE at byte i: [ \t]*\r?\n|[ \t]{3,}[^ \t\r\n] (a line end, or a column gap). */
static int cut_here(const Buf *B, Py_ssize_t i)
{
    if (line_break(B, i) >= 0)
        return 1;
    Py_ssize_t g = i;
    while (g < B->n && (B->b[g] == ' ' || B->b[g] == '\t'))
        g++;
    return g - i >= 3 && g < B->n && B->b[g] != '\r' && B->b[g] != '\n';
}

/* pdf.may_go_far: past its prefix, the piece stops in "/" or "-" or is a journal's code alone,
 * or its prefix has a shape and it does not end as a whole DOI of the shape does. */
static int may_go_far(const cp_t *s, Py_ssize_t n)
{
    if (far_call == NULL)
        return 0;
    Py_ssize_t a = suffix_at(s, n);
    if (a < 0)
        return 0;
    if (s[n - 1] == '/' || s[n - 1] == '-' || code_only(s, a, n))
        return 1;
    Py_ssize_t i = shape_index(s, s[a - 1] == '/' ? a - 1 : a - 3);
    if (i < 0)
        return 0;
    /* pdf.Shape.heads: the letters a piece of the shape starts with */
    if (a >= n || s[a] >= 128 || PyUnicode_FindChar(PyTuple_GET_ITEM(far_heads, i), s[a] | 0x20, 0, 64, 1) < 0)
        return 0;
    /* pdf.Shape.ends: a piece whose last run of digits, after "." or "-", is as long as a
     * whole DOI's is taken for whole (most DOIs of the registrant at a line end); one whose
     * digits follow a letter is a component or another form (t001, nature12477) */
    Py_ssize_t d = n;
    while (d > a && s[d - 1] < 128 && is_digit(s[d - 1]))
        d--;
    if (d < n && d > a && ((s[d - 1] | 0x20) >= 'a' && (s[d - 1] | 0x20) <= 'z'))
        return 0;
    if (d == n || d == a || (s[d - 1] != '.' && s[d - 1] != '-'))
        return 1;
    PyObject *ends = PyTuple_GET_ITEM(far_ends, i);
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(ends); j++)
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(ends, j)) == n - d)
            return 0;
    return 1;
}

static inline int far_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }

/* pdf.worth_a_walk: the cheap test of the line after the break at `at` before far_rest or
 * far_anchor walk (`anchor`: for a cut "10."); 0 also when the DOI's line is too long to be a
 * column's (pdf._doi_columns: nothing is found then). *ls: the start of the DOI's line, where
 * the bytes handed to the Python rule start. */
static int worth_a_walk(const Buf *B, Py_ssize_t at, int anchor, Py_ssize_t *lsp)
{
    const unsigned char *b = B->b;
    cp_t ch;
    /* the DOI's line's start, as pdf._doi_columns finds it, and the columns to `at` */
    Py_ssize_t ls = at, c1 = 0;
    while (ls > 0 && b[ls - 1] != '\n' && c1 < MAX_LINE) {
        ls -= b[ls - 1] < 0x80 ? 1 : dec_back(b, ls, &ch);
        c1++;
    }
    if (c1 >= MAX_LINE && ls > 0)
        return 0; /* no newline in the MAX_LINE characters before */
    *lsp = ls;
    /* the next newline within far_chars characters, and the line after it (MAX_LINE at most),
     * read up to them only: this runs at every DOI a line end cuts */
    Py_ssize_t nl = at, n = B->n;
    for (Py_ssize_t c = 0; nl < n && b[nl] != '\n' && c < far_chars; c++)
        nl += b[nl] < 0x80 ? 1 : dec(b, n, nl, &ch);
    if (nl >= n || b[nl] != '\n')
        return 0;
    Py_ssize_t s = nl + 1, e = s;
    for (Py_ssize_t c = 0; e < n && b[e] != '\n' && c < MAX_LINE; c++)
        e += b[e] < 0x80 ? 1 : dec(b, n, e, &ch);
    Py_ssize_t i = s;
    while (i < e && far_blank(b[i]))
        i++;
    if (i == e)
        return 1; /* blank */
    if (anchor)
        for (Py_ssize_t k = s; k < e; k++)
            if (b[k] == '/' || (b[k] == '%' && k + 2 < e && b[k + 1] == '2' && (b[k + 2] | 0x20) == 'f'))
                return 1;
    /* the DOI's block, read back from `at` */
    Py_ssize_t blk = 0, k = at;
    for (;;) { /* _SEGMENT_BACK: runs of non-blanks joined by one or two spaces or TABs */
        Py_ssize_t run = 0;
        while (k > ls && b[k - 1] != ' ' && b[k - 1] != '\t' && b[k - 1] != '\n') {
            k -= b[k - 1] < 0x80 ? 1 : dec_back(b, k, &ch);
            run++;
        }
        blk += run;
        if (run == 0)
            break;
        Py_ssize_t g = 0, k2 = k;
        while (k2 > ls && (b[k2 - 1] == ' ' || b[k2 - 1] == '\t') && g < 3) {
            k2--;
            g++;
        }
        if (g < 1 || g > 2 || k2 == ls || b[k2 - 1] == ' ' || b[k2 - 1] == '\t' || b[k2 - 1] == '\n')
            break;
        blk += g;
        k = k2;
    }
    /* pdf._GAP after `at` with text after it: the other column's column on the DOI's line */
    Py_ssize_t g = at, other = -1;
    while (g < n && (b[g] == ' ' || b[g] == '\t'))
        g++;
    if (g - at >= 3 && g < n && b[g] != '\r' && b[g] != '\n')
        other = c1 + (g - at);
    Py_ssize_t c0 = c1 - blk, col = 0, token = -1;
    int overlap = 0, in_other = 0;
    /* the line's segments (pdf._SEGMENT, form feeds and CRs read as spaces) */
    for (k = s; k < e;) {
        if (far_blank(b[k])) {
            k++;
            col++;
            continue;
        }
        Py_ssize_t start = col, sb = k;
        for (;;) {
            while (k < e && !far_blank(b[k])) {
                k += b[k] < 0x80 ? 1 : dec(b, e, k, &ch);
                col++;
            }
            Py_ssize_t g = 0, k2 = k;
            while (k2 < e && far_blank(b[k2]) && g < 3) {
                k2++;
                g++;
            }
            if (g >= 1 && g <= 2 && k2 < e && !far_blank(b[k2])) {
                col += g;
                k = k2;
                continue;
            }
            break;
        }
        if (start < c1 && col > c0)
            overlap = 1;
        if (other >= 0 && start - other <= COLUMN_SLACK && other - start <= COLUMN_SLACK)
            in_other = 1;
        if (token < 0 && c0 - COLUMN_SLACK <= start && start <= c0 + HANGING_INDENT)
            token = sb;
    }
    if (!overlap)
        return 1; /* the other column's line */
    if (other >= 0 && !in_other)
        return 1; /* stopped at a column gap, and nothing of that column on this line */
    if (token < 0)
        return 0;
    Py_ssize_t d = token; /* pdf._NUMBER_TOKEN: [0-9]+(?:[ \t\r]|\Z) */
    while (d < e && is_digit(b[d]))
        d++;
    return d > token && (d == e || b[d] == ' ' || b[d] == '\t' || b[d] == '\r');
}

/* A byte str.strip() may take for whitespace (every byte of a non-ASCII character counts). */
static inline int strip_byte(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F) || c >= 0x80; }

/* Whether a line after byte `at`, before `we`, may be a number alone (layout._PAGE_ALONE): a
 * superset, so that the page numbers are read whenever the walk (layout.below) could ask. */
static int number_line(const Buf *B, Py_ssize_t at, Py_ssize_t we)
{
    const unsigned char *b = B->b;
    const unsigned char *nl = memchr(b + at, '\n', (size_t)(we - at));
    while (nl != NULL) {
        Py_ssize_t i = nl - b + 1, j;
        while (i < we && b[i] != '\n' && strip_byte(b[i]))
            i++;
        for (j = i; j < we && is_digit(b[j]);)
            j++;
        Py_ssize_t k = j;
        while (k < we && b[k] != '\n' && strip_byte(b[k]))
            k++;
        if (j > i && j - i <= 4 && b[i] != '0' && (k == we || b[k] == '\n'))
            return 1;
        nl = i < we ? memchr(b + i, '\n', (size_t)(we - i)) : NULL;
    }
    return 0;
}

/* pdf.go_far at a line end `at`, its line starting at `ws` (worth_a_walk), past the document's page
 * numbers: the byte where the DOI goes on (`start`, the next line's the line-by-line join took,
 * or -1, or one farther down), -1 for none, -2 on an error. */
static Py_ssize_t go_far(const Buf *B, const Logical *L, Pages *pg, Py_ssize_t at, Py_ssize_t ws, Py_ssize_t start)
{
    Py_ssize_t we = chars_on(B, at, far_chars);
    /* the page numbers matter only to a number alone on a line the walk reads (layout.below) */
    if (number_line(B, at, we) && pages_read(pg, B) < 0)
        return -2;
    if (memchr(B->b + at, '\f', (size_t)(we - at)) != NULL) {
        /* a page ends within reach: layout.column_top may read the page's top, above */
        Py_ssize_t top = chars_back(B, at, PAGE_CHARS + 1);
        if (top < ws)
            ws = top;
    }
    PyObject *so_far = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, L->s, L->n);
    if (so_far == NULL)
        return -2;
    /* the text itself, not a copy: most pieces are told by `so_far` alone */
    PyObject *text = PyMemoryView_FromMemory((char *)B->b + ws, we - ws, PyBUF_READ);
    if (text == NULL) {
        Py_DECREF(so_far);
        return -2;
    }
    PyObject *r = PyObject_CallFunction(far_call, "OnOnO", text, at - ws, so_far, start < 0 ? (Py_ssize_t)-1 : start - ws,
                                        pg->set != NULL ? pg->set : no_pages);
    Py_DECREF(text);
    Py_DECREF(so_far);
    if (r == NULL)
        return -2;
    Py_ssize_t got = PyLong_AsSsize_t(r);
    Py_DECREF(r);
    if (got == -1 && PyErr_Occurred())
        return -2;
    return got < 0 ? -1 : ws + got;
}

/* pdf.join_pieces: extend the DOI in L across the breaks that fall inside it. 0, or -1. */
static int join_pieces(const Buf *B, Logical *L, const Evidence *ev, Pages *pg, BlockColumns *C, int *uncertain)
{
    cp_t t[NEXT_TOKEN];
    for (int j = 0; j < MAX_JOINS; j++) {
        Py_ssize_t at = L->pb[L->np - 1], start = -1;
        if (!new_below(B, at)) { /* pdf._next_piece */
            Py_ssize_t cont = continuation(B, at, C);
            if (cont == -2)
                return -1;
            cp_t last = L->s[L->n - 1];
            if (cont < 0 && (last == '-' || last == '/') && suffix_at(L->s, L->n) >= 0) {
                /* pdfminer sets its text boxes apart by a blank line: a DOI that stops in "-" or
                 * "/", which no DOI ends with, goes on in the next box */
                Py_ssize_t e = box_break(B, at);
                if (e >= 0 && !page_number(B, e, B->n))
                    cont = e;
            }
            if (cont < 0) {
                if (last == '-' || last == '/' || last == '.' || last == '>' || has_opener(L->s, L->n)) {
                    Py_ssize_t sp = at;
                    while (sp < B->n && sp - at < 2 && (B->b[sp] == ' ' || B->b[sp] == '\t'))
                        sp++;
                    Py_ssize_t m = sp == at ? 0 : next_token(B, sp, t);
                    if (m > 0 && space_join(L->s, L->n, t, m))
                        start = sp; /* spaces or TABs inside the DOI (spec §5) */
                } /* else no space can be inside this DOI: the common case, at once */
            } else {
                Py_ssize_t m = next_token(B, cont, t);
                if (m > 0) {
                    if (logical_room(L, 0) < 0)
                        return -1;
                    int guess, join = decide(B, L->s, L->n, t, m, cont, ev, &guess);
                    if (join < 0)
                        return -1;
                    *uncertain |= guess;
                    if (join)
                        start = cont;
                }
            }
        }
        Py_ssize_t ws;
        if (cut_here(B, at) && may_go_far(L->s, L->n) && (start < 0 || page_number(B, start, B->n)) &&
            worth_a_walk(B, at, 0, &ws)) {
            start = go_far(B, L, pg, at, ws, start); /* farther down (spec §5) */
            if (start == -2)
                return -1;
        }
        if (start < 0)
            break;
        if (add_run(B, L, start) < 0)
            return -1;
    }
    return 0;
}
