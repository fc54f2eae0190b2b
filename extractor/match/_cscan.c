/* The matcher of find.py (spec §2–§4, plain text) on raw UTF-8 bytes, for bulk scans.
 *
 * A port of find.py's _Scanner for text that is not PDF: the same anchor, left-context, end and
 * tail rules, the same canonical key (canonical.py), with the quirks of Python's `re` that
 * those rules depend on (IGNORECASE folds İ ı ſ K into i s k; \s and \d are Unicode). Working
 * on bytes, a block needs no decoding: characters are decoded only in a window around each
 * `10.` anchor. tests/test_cscan.py checks that it gives exactly what find.find_spans gives.
 * Invalid UTF-8 bytes read as U+FFFD, one per byte, as the pipeline's surrogateescape + clean do.
 * Its tables (tails, trailing and format characters, brackets, windows) are checked against the
 * Python ones when native.py imports it: `tables()` reports them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef uint32_t cp_t;

enum { F_BARE, F_LABEL, F_RESOLVER, F_DX, F_HANDLE, F_URN, F_EIDR, F_INFO, F_OTHER, F_PERCENT, F_SHORT, F_PDF_LINK, F_COUNT };
#define IS_URL(f) ((f) == F_RESOLVER || (f) == F_DX || (f) == F_HANDLE || (f) == F_OTHER || (f) == F_PERCENT)
#define IS_LABELLED(f) ((f) >= F_LABEL && (f) <= F_INFO)
#define IS_RESOLVER(f) ((f) == F_RESOLVER || (f) == F_DX || (f) == F_HANDLE)

#define MAX_DOI_CHARS 2000
#define SHORT_WINDOW 256
#define FIRST_WINDOW 32 /* characters read before the short window, for an early cut */
#define LEFT_WINDOW 512
#define MAX_LOGICAL (MAX_DOI_CHARS + 2 * SHORT_WINDOW)
#define RUN_CAP (MAX_LOGICAL + MAX_DOI_CHARS + 8) /* an anchor of up to MAX_LOGICAL, then a whole run */

/* ---- UTF-8 ---------------------------------------------------------------------------- */

/* The character at b[i] (strict UTF-8, as Python decodes it); an invalid byte is U+FFFD. */
static inline int dec(const unsigned char *b, Py_ssize_t n, Py_ssize_t i, cp_t *out)
{
    unsigned c = b[i];
    if (c < 0x80) {
        *out = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        if (i + 1 < n && (b[i + 1] & 0xC0) == 0x80) {
            *out = ((c & 0x1F) << 6) | (b[i + 1] & 0x3F);
            return 2;
        }
    } else if (c >= 0xE0 && c <= 0xEF) {
        if (i + 2 < n) {
            unsigned c1 = b[i + 1], c2 = b[i + 2];
            if ((c1 & 0xC0) == 0x80 && (c2 & 0xC0) == 0x80 && !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0)) {
                *out = ((c & 0x0F) << 12) | ((c1 & 0x3F) << 6) | (c2 & 0x3F);
                return 3;
            }
        }
    } else if (c >= 0xF0 && c <= 0xF4) {
        if (i + 3 < n) {
            unsigned c1 = b[i + 1], c2 = b[i + 2], c3 = b[i + 3];
            if ((c1 & 0xC0) == 0x80 && (c2 & 0xC0) == 0x80 && (c3 & 0xC0) == 0x80 && !(c == 0xF0 && c1 < 0x90) &&
                !(c == 0xF4 && c1 >= 0x90)) {
                *out = ((c & 0x07) << 18) | ((c1 & 0x3F) << 12) | ((c2 & 0x3F) << 6) | (c3 & 0x3F);
                return 4;
            }
        }
    }
    *out = 0xFFFD;
    return 1;
}

/* The character that ends at b[i] (exclusive): a valid sequence, else one invalid byte. */
static inline int dec_back(const unsigned char *b, Py_ssize_t i, cp_t *out)
{
    unsigned c = b[i - 1];
    if (c < 0x80) {
        *out = c;
        return 1;
    }
    for (int k = 2; k <= 4 && i - k >= 0; k++) {
        if ((b[i - k] & 0xC0) != 0x80) {
            cp_t cp;
            if (dec(b, i, i - k, &cp) == k) {
                *out = cp;
                return k;
            }
            break;
        }
    }
    *out = 0xFFFD;
    return 1;
}

/* ---- character classes, as Python's re sees them ------------------------------------------ */

static inline int is_space(cp_t c)
{
    if (c < 128)
        return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x1F);
    return Py_UNICODE_ISSPACE(c);
}

static inline int is_alnum(cp_t c)
{
    if (c < 128)
        return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    return Py_UNICODE_ISALNUM(c);
}

/* [^\s"\x00-\x1f\x7f-\x9f]: the characters a DOI's run is made of. */
static inline int run_end(cp_t c) { return c < 0x20 || c == '"' || (c >= 0x7F && c <= 0x9F) || is_space(c); }

/* The token before an anchor ends at whitespace or one of "'([{<>,; (find._TOKEN_REV). */
static inline int token_stop(cp_t c)
{
    switch (c) {
    case '"': case '\'': case '(': case '[': case '{': case '<': case '>': case ',': case ';':
        return 1;
    }
    return is_space(c);
}

/* Case-insensitive match of one character against a lower-case ASCII pattern character. */
static inline int ci(cp_t c, unsigned char l)
{
    if (c == l)
        return 1;
    if (l >= 'a' && l <= 'z') {
        if (c == (cp_t)(l - 32))
            return 1;
        if (l == 'i')
            return c == 0x130 || c == 0x131;
        if (l == 's')
            return c == 0x17F;
        if (l == 'k')
            return c == 0x212A;
    }
    return 0;
}

/* (?i)[a-z]: ASCII letters and the four characters IGNORECASE folds into them. */
static inline int az_ci(cp_t c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z' && c < 128) || c == 0x130 || c == 0x131 || c == 0x17F || c == 0x212A;
}
static inline int is_digit(cp_t c) { return c >= '0' && c <= '9'; }
static inline int ascii_alpha(cp_t c) { return c < 128 && (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static inline int hexd(cp_t c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f' && c < 128); }
static inline int hexv(cp_t c) { return c <= '9' ? (int)(c - '0') : (int)((c | 0x20) - 'a' + 10); }

static inline int trailing(cp_t c)
{
    switch (c) {
    case '.': case ',': case ';': case ':': case '!': case '?': case '"': case '\'': case '*': case '`':
    case 0x201D: case 0x2019: case 0xBB: case 0x201C: case 0x203A: case 0x300D: case 0x2026:
    case 0xAD: case 0x200B: case 0x200C: case 0x200D: case 0x2060: case 0xFEFF:
        return 1;
    }
    return 0;
}
static inline int format_char(cp_t c)
{
    return c == 0xAD || c == 0x200B || c == 0x200C || c == 0x200D || c == 0x2060 || c == 0xFEFF;
}
static inline int opener(cp_t c)
{
    return c == '(' || c == '[' || c == '{' || c == '<' || c == 0xFF08 || c == 0xFF3B || c == 0xFF5B || c == 0xFF1C;
}
static inline cp_t opener_of(cp_t c)
{
    switch (c) {
    case ')': return '(';
    case ']': return '[';
    case '}': return '{';
    case '>': return '<';
    case 0xFF09: return 0xFF08;
    case 0xFF3D: return 0xFF3B;
    case 0xFF5D: return 0xFF5B;
    case 0xFF1E: return 0xFF1C;
    }
    return 0;
}

/* s[i:] starts with the lower-case ASCII literal `lit`, case-insensitively, within n. */
static inline int lit_at(const cp_t *s, Py_ssize_t n, Py_ssize_t i, const char *lit)
{
    for (; *lit; lit++, i++)
        if (i >= n || !ci(s[i], (unsigned char)*lit))
            return 0;
    return 1;
}

/* ---- left context (find._left_context, not PDF) ------------------------------------------ */

/* Reversed literal: r[e:] starts with the reverse of the lower-case literal `lit`. */
#define rlit(r, n, e, lit) rlit_n((r), (n), (e), (lit), (Py_ssize_t)sizeof(lit) - 1)
static int rlit_n(const cp_t *r, Py_ssize_t n, Py_ssize_t e, const char *lit, Py_ssize_t L)
{
    if (e + L > n)
        return 0;
    for (Py_ssize_t k = 0; k < L; k++)
        if (!ci(r[e + k], (unsigned char)lit[L - 1 - k]))
            return 0;
    return 1;
}

/* Matches of an optional "https?:/{1,3}" ending just before index e of the reversed tail
 * `r` (r[0] is the character before the anchor): the index after the prefix, or e. */
static Py_ssize_t http_prefix(const cp_t *r, Py_ssize_t n, Py_ssize_t e)
{
    Py_ssize_t i = e, k = 0;
    while (i < n && r[i] == '/')
        i++, k++;
    if (k < 1 || k > 3 || i >= n || r[i] != ':')
        return e;
    i++;
    if (rlit(r, n, i, "https"))
        return i + 5;
    if (rlit(r, n, i, "http"))
        return i + 4;
    return e;
}

/* (?<![a-z0-9/.%-]) at reversed index e of a slice of n characters (e == n: slice start). */
static int not_after_namechar(const cp_t *r, Py_ssize_t n, Py_ssize_t e, int with_punct)
{
    if (e >= n)
        return 1;
    cp_t c = r[e];
    if (az_ci(c) || is_digit(c))
        return 0;
    if (with_punct && (c == '/' || c == '.' || c == '%' || c == '-'))
        return 0;
    return 1;
}

/* find.URLISH on the token tok[0:n] (in text order). */
static int urlish(const cp_t *t, Py_ssize_t n)
{
    for (Py_ssize_t j = 0; j + 3 <= n; j++) {
        if (t[j] == ':' && t[j + 1] == '/' && t[j + 2] == '/') {
            for (Py_ssize_t k = j - 1; k >= 0; k--) {
                cp_t c = t[k];
                if (az_ci(c))
                    return 1;
                if (!(is_digit(c) || c == '+' || c == '.' || c == '-'))
                    break;
            }
        }
        if (j + 4 <= n && ci(t[j], 'w') && ci(t[j + 1], 'w') && ci(t[j + 2], 'w') && t[j + 3] == '.')
            return 1;
    }
    for (Py_ssize_t j = 0; j + 4 <= n; j++) /* www. overlapping the end of the loop above */
        if (ci(t[j], 'w') && ci(t[j + 1], 'w') && ci(t[j + 2], 'w') && t[j + 3] == '.')
            return 1;
    /* ^host.tld/ */
    {
        Py_ssize_t j = 0, labels = 0, last_start = 0;
        int ok = 1;
        while (j < n && t[j] != '/') {
            cp_t c = t[j];
            if (c == '.') {
                if (j == last_start) {
                    ok = 0;
                    break;
                }
                labels++;
                last_start = j + 1;
            } else if (!(az_ci(c) || is_digit(c) || c == '-')) {
                ok = 0;
                break;
            }
            j++;
        }
        if (ok && j < n && labels >= 1 && j - last_start >= 2) {
            int letters = 1;
            for (Py_ssize_t k = last_start; k < j; k++)
                if (!az_ci(t[k]))
                    letters = 0;
            if (letters)
                return 1;
        }
    }
    /* ^/segment/ */
    if (n >= 3 && t[0] == '/') {
        Py_ssize_t j = 1;
        while (j < n && (az_ci(t[j]) || is_digit(t[j]) || t[j] == '.' || t[j] == '_' || t[j] == '~' || t[j] == '%' || t[j] == '-'))
            j++;
        if (j >= 2 && j < n && t[j] == '/')
            return 1;
    }
    return 0;
}

typedef struct {
    const unsigned char *b;
    Py_ssize_t n;
} Buf;

/* The display form of the DOI whose anchor is at byte p and the byte where it starts, or -1. */
static int broken_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t tn);
static int spaced_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t *startp);

static int left_context(const Buf *B, Py_ssize_t p, Py_ssize_t *startp, int pdf)
{
    cp_t r[LEFT_WINDOW + 1];
    Py_ssize_t off[LEFT_WINDOW + 1];
    Py_ssize_t n = 0, i = p, limit = 64;
    while (n < limit && i > 0) {
        cp_t c;
        int k = dec_back(B->b, i, &c);
        if (token_stop(c))
            break;
        i -= k;
        r[n] = c;
        off[n] = i;
        n++;
        if (n == 64 && limit == 64 && i > 0)
            limit = LEFT_WINDOW;
    }
    if (n > 0 && !(n == 1 && (r[0] == ':' || r[0] == 0xFF1A || r[0] == '='))) {
        /* find._LEFT_GLUED on the last 40 characters of the token: the leftmost match wins. */
        Py_ssize_t tn = n < 40 ? n : 40, best = 0;
        int bform = -1;
        Py_ssize_t e;
#define CONSIDER(len, f)               \
    do {                               \
        if ((len) > best) {            \
            best = (len);              \
            bform = (f);               \
        }                              \
    } while (0)
        if (rlit(r, tn, 0, "dx.doi.org/"))
            CONSIDER(http_prefix(r, tn, 11), F_DX);
        if (rlit(r, tn, 0, "doi.org/")) {
            e = 8;
            if (rlit(r, tn, 8, "www."))
                e = 12;
            CONSIDER(http_prefix(r, tn, e), F_RESOLVER);
        }
        if (rlit(r, tn, 0, "hdl.handle.net/"))
            CONSIDER(http_prefix(r, tn, 15), F_HANDLE);
        if (rlit(r, tn, 0, "urn:doi:"))
            CONSIDER(8, F_URN);
        if (rlit(r, tn, 0, "urn:eidr:"))
            CONSIDER(9, F_EIDR);
        if (rlit(r, tn, 0, "info:doi/"))
            CONSIDER(9, F_INFO);
        if (rlit(r, tn, 0, "info%3adoi%2f"))
            CONSIDER(13, F_PERCENT);
        if (rlit(r, tn, 0, "doi%3a") && not_after_namechar(r, tn, 6, 0))
            CONSIDER(6, F_PERCENT + 100); /* plabel */
        e = (r[0] == ':' || r[0] == 0xFF1A || r[0] == '=') ? 1 : 0;
        if (rlit(r, tn, e, "doi") && not_after_namechar(r, tn, e + 3, 1))
            CONSIDER(e + 3, F_LABEL);
#undef CONSIDER
        if (bform >= 0) {
            if (bform == F_PERCENT + 100)
                bform = F_PERCENT;
            if (bform != F_LABEL) {
                *startp = off[best - 1];
                return bform;
            }
        }
        cp_t tok[LEFT_WINDOW];
        for (Py_ssize_t k = 0; k < n; k++)
            tok[k] = r[n - 1 - k];
        int url = urlish(tok, n);
        if (bform == F_LABEL) {
            *startp = url ? off[n - 1] : off[best - 1];
            return url ? F_OTHER : F_LABEL;
        }
        cp_t prev = r[0];
        int pct = n >= 3 && r[2] == '%' && hexd(r[1]) && hexd(r[0]);
        if (url) {
            if (prev == '/' || prev == '=' || pct) {
                *startp = off[n - 1];
                return F_OTHER;
            }
            if (is_alnum(prev) || (prev == '.' && n > 1 && is_digit(r[1])))
                return -1; /* spec §2: glued to a number and dot, /19.10.2019/ */
            *startp = off[n - 1];
            return F_OTHER;
        }
        if (pct) {
            cp_t d = (cp_t)(hexv(r[1]) * 16 + hexv(r[0]));
            if (is_alnum(d))
                return -1;
            *startp = p;
            return F_PERCENT;
        }
        if (is_alnum(prev) || prev == '_' || prev == '-' || prev == '.')
            return -1;
        if (pdf && broken_resolver(B, p, n)) {
            *startp = off[n - 1]; /* PDF text: "https://doi.\norg/10.…", a resolver broken across a line */
            return F_RESOLVER;
        }
        *startp = p;
        return F_BARE;
    }
    /* A spaced label (find._LEFT_SPACED_LABEL) in the last 24 characters, or bare. The
     * characters are read back as the rule gets to them (FILL): most anchors are bare after the
     * first, every DOI of a list joined by commas among them (issue 15). */
    {
        cp_t w[24];
        Py_ssize_t wo[24], m = 0, j = p;
#define FILL(x)                                 \
    while (m < (x) && m < 24 && j > 0) {        \
        cp_t c_;                                \
        j -= dec_back(B->b, j, &c_);            \
        w[m] = c_;                              \
        wo[m++] = j;                            \
    }
        Py_ssize_t k = 0;
        FILL(1);
        while (k < m && w[k] != '\n' && is_space(w[k])) {
            k++;
            FILL(k + 1);
        }
        if (k < m && w[k] == '\n') {
            k++;
            FILL(k + 1);
            while (k < m && w[k] != '\n' && is_space(w[k])) {
                k++;
                FILL(k + 1);
            }
        }
        if (k < m && (w[k] == ':' || w[k] == 0xFF1A || w[k] == '=')) {
            k++;
            FILL(k + 1);
            while (k < m && (w[k] == ' ' || w[k] == '\t')) {
                k++;
                FILL(k + 1);
            }
        }
        FILL(k + 4);
#undef FILL
        if (k + 3 <= m && ci(w[k], 'i') && ci(w[k + 1], 'o') && ci(w[k + 2], 'd') && not_after_namechar(w, m, k + 3, 1)) {
            *startp = wo[k + 2];
            return F_LABEL;
        }
    }
    if (pdf) {
        int form = spaced_resolver(B, p, startp);
        if (form >= 0)
            return form;
    }
    *startp = p;
    return F_BARE;
}

/* ---- the end of a name (rules.first_cut, rules.end_of_name, tails.strip_tails) ------------------ */

/* _SPLIT's lookahead at s[i:], within n: (?:doi:)?10\.[0-9]{4,}(?:\.[0-9]+)*(?:/|%2[Ff]). */
static int split_ahead(const cp_t *s, Py_ssize_t n, Py_ssize_t i)
{
    if (lit_at(s, n, i, "doi:"))
        i += 4;
    if (!(i + 3 <= n && s[i] == '1' && s[i + 1] == '0' && s[i + 2] == '.'))
        return 0;
    i += 3;
    Py_ssize_t d = 0;
    while (i < n && is_digit(s[i]))
        i++, d++;
    if (d < 4)
        return 0;
    while (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
        i++;
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && s[i] == '/')
        return 1;
    return i + 3 <= n && s[i] == '%' && s[i + 1] == '2' && (s[i + 2] == 'F' || s[i + 2] == 'f');
}

/* rules.DEBRIS's characters: U+FFFD and private-use code points. */
static inline int debris_char(cp_t c) { return c == 0xFFFD || (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000; }

/* The characters at which some rule of first_cut may end a name (?#&,;<>()[]{}, their full-width
 * closers, rules.DEBRIS's characters), by the rule each wakes: a name holding none of a rule's
 * characters skips that rule's pass. */
enum { K_QUERY = 1, K_HASH_AMP = 2, K_SPLIT = 4, K_LT = 8, K_SEMI = 16, K_PAREN = 32, K_DEBRIS = 64, K_CLOSE = 128 };
static unsigned char CUT_ASCII[128];

static inline unsigned cut_class(cp_t c)
{
    if (c < 128)
        return CUT_ASCII[c];
    if (c < 0xE000)
        return 0;
    if (debris_char(c))
        return K_DEBRIS;
    return c == 0xFF09 || c == 0xFF3D || c == 0xFF5D || c == 0xFF1E ? K_CLOSE : 0;
}

static Py_ssize_t first_cut(const cp_t *s, Py_ssize_t n, int form)
{
    Py_ssize_t end = n, i;
    unsigned m = 0;
    for (i = 0; i < n; i++)
        m |= cut_class(s[i]);
    if (m == 0)
        return n; /* nothing any rule reacts to: the common case */
    if (IS_URL(form)) {
        for (i = 0; i < n && (m & (K_QUERY | K_HASH_AMP)); i++)
            if (s[i] == '?' || s[i] == '#' || s[i] == '&') {
                end = i;
                break;
            }
    } else if (form == F_URN || form == F_EIDR) {
        for (i = 0; i < n && (m & (K_QUERY | K_HASH_AMP)); i++)
            if (s[i] == '?' || s[i] == '#') {
                end = i;
                break;
            }
    } else if (m & K_QUERY) {
        for (i = 0; i < n; i++) {
            if (s[i] == '?' && i + 1 < n && (ascii_alpha(s[i + 1]) || s[i + 1] == '_')) {
                Py_ssize_t j = i + 2;
                while (j < n && (ascii_alpha(s[j]) || is_digit(s[j]) || s[j] == '_' || s[j] == '.' || s[j] == '-'))
                    j++;
                if (j < n && s[j] == '=') {
                    end = i;
                    break;
                }
            }
        }
    }
    for (i = 0; i < end && (m & K_SPLIT); i++)
        if ((s[i] == ',' || s[i] == ';') && split_ahead(s, end, i + 1)) {
            end = i;
            break;
        }
    for (i = 0; i < end && (m & K_LT); i++) {
        if (s[i] != '<')
            continue;
        Py_ssize_t j = i + 1;
        if (j < end && s[j] == '/')
            j++;
        if (!(j < end && ascii_alpha(s[j])))
            continue;
        j++;
        while (j < end && (ascii_alpha(s[j]) || is_digit(s[j]) || s[j] == ':' || s[j] == '_' || s[j] == '.' || s[j] == '-'))
            j++;
        if (j == end || is_space(s[j]) || s[j] == '/' || s[j] == '>') {
            end = i;
            break;
        }
    }
    /* rules._KEY_VALUE (;key: or ;key=) and rules.DEBRIS (U+FFFD, private use, (cid:N)), in that
     * order as rules.first_cut applies them: the key-value cut bounds the debris search */
    if (m & (K_SEMI | K_PAREN | K_DEBRIS)) {
        Py_ssize_t kv = end, db = end;
        for (i = 0; i < end; i++) {
            cp_t c = s[i];
            if (c == ';' && kv == end && i + 1 < end && ascii_alpha(s[i + 1])) {
                Py_ssize_t j = i + 2;
                while (j < end && (ascii_alpha(s[j]) || is_digit(s[j]) || s[j] == '_' || s[j] == '-'))
                    j++;
                if (j < end && (s[j] == ':' || s[j] == '='))
                    kv = i;
            } else if (c == '(' && db == end && i + 6 <= end && s[i + 1] == 'c' && s[i + 2] == 'i' && s[i + 3] == 'd' &&
                       s[i + 4] == ':' && is_digit(s[i + 5])) {
                Py_ssize_t j = i + 6;
                while (j < end && is_digit(s[j]))
                    j++;
                if (j < kv && s[j] == ')')
                    db = i;
            } else if (c >= 0xE000 && db == end && debris_char(c)) {
                db = i;
            }
            if (db < end || kv < end)
                break;
        }
        if (kv < end)
            end = kv;
        if (db < end)
            end = db;
    }
    /* _cut_brackets: the first closing bracket that closes nothing opened before it */
    if (m & K_CLOSE) {
        cp_t local[MAX_LOGICAL + 8], *stack = local;
        if (end > MAX_LOGICAL + 8 && (stack = PyMem_Malloc(sizeof(cp_t) * (size_t)end)) == NULL)
            stack = local, end = MAX_LOGICAL + 8; /* out of memory: the window's bound, as the plain scan has */
        Py_ssize_t depth = 0, cut = end;
        for (i = 0; i < end; i++) {
            cp_t c = s[i];
            if (opener(c)) {
                stack[depth++] = c;
            } else {
                cp_t o = opener_of(c);
                if (o) {
                    if (depth && stack[depth - 1] == o) {
                        depth--;
                    } else {
                        cut = i;
                        break;
                    }
                }
            }
        }
        if (stack != local)
            PyMem_Free(stack);
        return cut;
    }
    return end;
}

static int is_decimal(cp_t c) { return c < 128 ? is_digit(c) : Py_UNICODE_ISDECIMAL(c); }

static Py_ssize_t VIEW_LEN[32], RXIV_LEN[16], SEGMENT_LEN[16], MEDIA_LEN[32];
static const char *const VIEWS[] = {"abstract", "abs", "full", "pdf", "epdf", "pdfdirect", "fulltext", "html", "meta",
                                    "references", "suppinfo", "citedby", "figures", "tables", "download", "issuetoc",
                                    "pdfplus", NULL};
static const char *const RXIV[] = {"full", "abstract", "full-text", "article-info", "article-metrics",
                                   "supplementary-material", "full.pdf", "full.pdf+html", "figures-only", NULL};

static const char *const SEGMENTS[] = {"asset", "assets", "mediaobjects", "suppl_file", "email", "figures", "tables", NULL};
static const char *const MEDIA[] = {"png", "jpg", "jpeg", "gif", "svg", "webp", "tif", "tiff", "bmp", "mp4", "m4v", "mov", "webm", "mp3", NULL};

/* s[0:n] ends with "." and a media extension: the index of that ".", or -1. */
static Py_ssize_t media_ext(const cp_t *s, Py_ssize_t n)
{
    for (int a = 0; MEDIA[a]; a++) {
        Py_ssize_t st = n - MEDIA_LEN[a] - 1;
        if (st >= 0 && s[st] == '.' && lit_at(s, n, st + 1, MEDIA[a]))
            return st;
    }
    return -1;
}

/* tails.TAIL_RULES[3]: v\d+(?:\.(?:full|…))*\Z at i (after the digits' start). */
static int rxiv_rest(const cp_t *s, Py_ssize_t n, Py_ssize_t i)
{
    if (i == n)
        return 1;
    if (s[i] != '.')
        return 0;
    for (int a = 0; RXIV[a]; a++) {
        Py_ssize_t L = RXIV_LEN[a];
        if (lit_at(s, n, i + 1, RXIV[a]) && rxiv_rest(s, n, i + 1 + L))
            return 1;
    }
    return 0;
}

/* Case-insensitive search of a lower-case literal of L characters (NUL allowed) in ctx[0:m]. */
static int ctx_has(const cp_t *ctx, Py_ssize_t m, const char *lit, Py_ssize_t L)
{
    for (Py_ssize_t i = 0; i + L <= m; i++) {
        Py_ssize_t k = 0;
        while (k < L && ci(ctx[i + k], (unsigned char)lit[k]))
            k++;
        if (k == L)
            return 1;
    }
    return 0;
}

/* tails.TAIL_RULES has this many publisher rules (0-8); rule N_TAIL_RULES is the trailing slash. */
#define N_TAIL_RULES 9

/* Start of the leftmost match of tail rule `rule` in s[0:n], or -1. */
static Py_ssize_t tail_match(int rule, const cp_t *s, Py_ssize_t n)
{
    Py_ssize_t i;
    switch (rule) {
    case 0: /* ;jsessionid=.*\Z */
        for (i = 0; i < n; i++)
            if (lit_at(s, n, i, ";jsessionid="))
                return i;
        return -1;
    case 1: { /* /(?:views)/?\Z */
        Py_ssize_t best = -1;
        if (n < 4 || (s[n - 1] == '/' ? n < 5 : 0))
            return -1;
        for (int a = 0; VIEWS[a]; a++) {
            Py_ssize_t L = VIEW_LEN[a];
            for (int slash = 0; slash <= 1; slash++) {
                Py_ssize_t st = n - slash - L - 1;
                if (st < 0 || s[st] != '/' || (slash && s[n - 1] != '/') || !lit_at(s, n - slash, st + 1, VIEWS[a]))
                    continue;
                if (best < 0 || st < best)
                    best = st;
            }
        }
        return best;
    }
    case 2: /* \.pdf\Z */
        return n >= 4 && s[n - 4] == '.' && lit_at(s, n, n - 3, "pdf") ? n - 4 : -1;
    case 3: /* (?<=\d)v\d+(?:\.(?:…))*\Z */
        for (i = 1; i < n; i++) {
            if (!ci(s[i], 'v') || !is_decimal(s[i - 1]))
                continue;
            Py_ssize_t j = i + 1;
            while (j < n && is_decimal(s[j]))
                j++;
            if (j > i + 1 && rxiv_rest(s, n, j))
                return i;
        }
        return -1;
    case 4: /* /(?:transform(?:/.*)?|agency)\Z */
        for (i = 0; i < n; i++) {
            if (s[i] != '/')
                continue;
            if (lit_at(s, n, i + 1, "transform") && (i + 10 == n || s[i + 10] == '/'))
                return i;
            if (i + 7 == n && lit_at(s, n, i + 1, "agency"))
                return i;
        }
        return -1;
    case 5: /* /\d+(?:/[^/]*)?\Z */
        for (i = 0; i < n; i++) {
            if (s[i] != '/')
                continue;
            Py_ssize_t j = i + 1;
            while (j < n && is_decimal(s[j]))
                j++;
            if (j == i + 1)
                continue;
            if (j == n)
                return i;
            if (s[j] != '/')
                continue;
            Py_ssize_t k2 = j + 1;
            while (k2 < n && s[k2] != '/')
                k2++;
            if (k2 == n)
                return i;
        }
        return -1;
    case 6: /* /(?:asset|assets|mediaobjects|suppl_file|email|figures|tables)(?:/.*)?\Z */
        for (i = 0; i < n; i++) {
            if (s[i] != '/')
                continue;
            for (int a = 0; SEGMENTS[a]; a++) {
                Py_ssize_t e = i + 1 + SEGMENT_LEN[a];
                if (lit_at(s, n, i + 1, SEGMENTS[a]) && (e == n || s[e] == '/'))
                    return i;
            }
        }
        return -1;
    case 7: { /* /[^/]*\.(?:media)\Z */
        Py_ssize_t d = media_ext(s, n);
        if (d < 0)
            return -1;
        for (i = d; i >= 0; i--)
            if (s[i] == '/')
                return i;
        return -1;
    }
    case 8: /* \.(?:media)\Z */
        return media_ext(s, n);
    case N_TAIL_RULES: /* /\Z */
        return n >= 1 && s[n - 1] == '/' ? n - 1 : -1;
    }
    return -1;
}

/* The context of tail rules 3 and 5: searched in url_before + NUL + name. */
static int tail_context(int rule, const cp_t *ub, Py_ssize_t ubn, const cp_t *s, Py_ssize_t n)
{
    cp_t ctx[LEFT_WINDOW + 8 + MAX_LOGICAL + 2]; /* url_before (at most LEFT_WINDOW + 4), NUL, name */
    Py_ssize_t m = 0;
    for (Py_ssize_t k = 0; k < ubn; k++)
        ctx[m++] = ub[k];
    ctx[m++] = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        ctx[m++] = s[k];
    if (rule == 3)
        return ctx_has(ctx, m, "biorxiv.org/", 12) || ctx_has(ctx, m, "medrxiv.org/", 12) || ctx_has(ctx, m, "\00010.1101/", 9);
    return ctx_has(ctx, m, "/article/doi/\000", 14);
}

static Py_ssize_t strip_tails(const cp_t *s, Py_ssize_t n, const cp_t *ub, Py_ssize_t ubn, int publisher)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int rule = publisher ? 0 : N_TAIL_RULES; rule <= N_TAIL_RULES; rule++) {
            Py_ssize_t m = tail_match(rule, s, n);
            if (m < 0 || m == n)
                continue;
            if ((rule == 3 || rule == 5) && !tail_context(rule, ub, ubn, s, n))
                continue;
            int nonempty = 0; /* _SUFFIX_NONEMPTY: "/" or "%2F" and a character after it, in s[:m] */
            for (Py_ssize_t k = 0; k + 1 < m; k++) {
                if (s[k] == '/' && s[k + 1] != '\n') {
                    nonempty = 1;
                    break;
                }
                if (s[k] == '%' && k + 3 < m && s[k + 1] == '2' && (s[k + 2] == 'F' || s[k + 2] == 'f') && s[k + 3] != '\n') {
                    nonempty = 1;
                    break;
                }
            }
            if (nonempty) {
                n = m;
                changed = 1;
            }
        }
    }
    return n;
}

/* tails.SHIELDS: the URL before the DOI is a shields.io badge's path, shields\.io/badge/[^/]*\Z. */
static int shields(const cp_t *ub, Py_ssize_t ubn)
{
    Py_ssize_t i = ubn;
    while (i > 0 && ub[i - 1] != '/')
        i--;
    return i >= 17 && lit_at(ub, ubn, i - 17, "shields.io/badge");
}

/* tails.shields_end: before the last "-" that ends an odd run of dashes ("--" is a literal "-"). */
static Py_ssize_t shields_end(const cp_t *s, Py_ssize_t n)
{
    Py_ssize_t L = n - 1;
    while (L >= 0 && s[L] != '-')
        L--;
    if (L < 0)
        return n;
    Py_ssize_t a = L;
    while (a > 0 && s[a - 1] == '-')
        a--;
    return (L - a) % 2 == 0 ? L : n;
}

/* tails.shields_unescape, in place: "--" is "-", "__" is "_". Returns the new length. */
static Py_ssize_t shields_unescape(cp_t *s, Py_ssize_t n)
{
    Py_ssize_t o = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        s[o++] = s[i];
        if ((s[i] == '-' || s[i] == '_') && i + 1 < n && s[i + 1] == s[i])
            i++;
    }
    return o;
}

/* tails.FILE_STORE at s[0:n]: 10\.[0-9.]+/[0-9]+/. */
static int file_store(const cp_t *s, Py_ssize_t n)
{
    Py_ssize_t i = 3;
    if (!(n > 3 && s[0] == '1' && s[1] == '0' && s[2] == '.'))
        return 0;
    while (i < n && (is_digit(s[i]) || s[i] == '.'))
        i++;
    if (i == 3 || i >= n || s[i] != '/')
        return 0;
    Py_ssize_t j = ++i;
    while (i < n && is_digit(s[i]))
        i++;
    return i > j && i + 1 < n && s[i] == '/';
}

/* tails.DOI_PATH_MARKER: (?i)/doi/ in the URL before the DOI. */
static int doi_path_marker(const cp_t *ub, Py_ssize_t ubn)
{
    for (Py_ssize_t j = 0; j + 5 <= ubn; j++)
        if (lit_at(ub, ubn, j, "/doi/"))
            return 1;
    return 0;
}

/* One application of the rules; `cut`: first_cut(s, n, form) when the caller knows it, else -1. */
static Py_ssize_t end_of_name_once(const cp_t *s, Py_ssize_t n, int form, const cp_t *ub, Py_ssize_t ubn, Py_ssize_t cut)
{
    Py_ssize_t end = cut >= 0 ? cut : first_cut(s, n, form);
    while (end && trailing(s[end - 1]))
        end--;
    if (IS_URL(form) && end) {
        int publisher = !IS_RESOLVER(form);
        if (publisher && shields(ub, ubn))
            return shields_end(s, end);
        end = strip_tails(s, end, ub, ubn, publisher);
        while (end && trailing(s[end - 1]))
            end--;
        if (publisher && file_store(s, end) && !doi_path_marker(ub, ubn))
            return 0;
    }
    return end;
}

/* rules.end_of_name: the rules applied until none applies (a cut can leave a tag-like "<name"
 * at the new end, which rules._TAGLIKE ends a name at). */
static Py_ssize_t end_of_name(const cp_t *s, Py_ssize_t n, int form, const cp_t *ub, Py_ssize_t ubn, Py_ssize_t cut)
{
    Py_ssize_t end = end_of_name_once(s, n, form, ub, ubn, cut);
    while (end > 0 && end < n) {
        Py_ssize_t lt = 0;
        while (lt < end && s[lt] != '<')
            lt++;
        if (lt == end)
            break;
        Py_ssize_t again = end_of_name_once(s, end, form, ub, ubn, -1);
        if (again == end)
            break;
        end = again;
    }
    return end;
}

/* ---- canonical key (canonical.canonical_key) ----------------------------------------------- */

static int utf8_len(unsigned lead)
{
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF)
        return 3;
    if (lead >= 0xF0 && lead <= 0xF4)
        return 4;
    return 0;
}

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

static Py_ssize_t utf8_encode(const cp_t *s, Py_ssize_t n, char *out)
{
    Py_ssize_t o = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        cp_t c = s[i];
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | (c >> 6));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | (c >> 12));
            out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | (c >> 18));
            out[o++] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    return o;
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

/* ---- the mention table: per-document aggregation (dedupe.mentions_of) --------------------- */

static uint64_t fnv1a(const char *u, Py_ssize_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)u[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* A place of the hash table: a row, or -1, with the high half of its key's hash, so that a probe
 * passing other keys reads no row (a document of distinct DOIs misses the cache on each). */
typedef struct {
    int32_t row;
    uint32_t tag;
} Slot;

/* The rows of one document's distinct DOIs, found by an open-addressing table on the UTF-8
 * bytes of the canonical DOI: a DOI seen before costs no Python object at all. */
typedef struct {
    PyObject_HEAD
    int64_t *counts, *offsets, *lines; /* lines: 1-based line of the first offset, or -1 */
    int32_t *masks;
    uint64_t *hashes;      /* FNV-1a of the key bytes, by row (also the bucket hash) */
    Py_ssize_t *koff;      /* key bytes of each row in the arena */
    Py_ssize_t *klen;
    Py_ssize_t *roff;      /* the first raw text's UTF-8 bytes in the raw arena, by row ... */
    Py_ssize_t *rlen;      /* ... or -1 where it is the key's own bytes (a bare DOI in lower case) */
    Py_ssize_t n, cap;
    char *arena, *rarena;
    Py_ssize_t arena_len, arena_cap, rarena_len, rarena_cap;
    Slot *slots;
    Py_ssize_t nslots;     /* a power of two */
} Mentions;

/* Empty the table, keeping its storage: the hash slots of its rows are emptied one by one when
 * they are few (a table of thousands of slots made for a previous document), else all at once. */
static void mentions_clear(Mentions *m)
{
    if (m->slots != NULL && 8 * m->n < m->nslots) {
        for (Py_ssize_t r = 0; r < m->n; r++) {
            Py_ssize_t i = (Py_ssize_t)(m->hashes[r] & (uint64_t)(m->nslots - 1));
            while (m->slots[i].row != r)
                i = (i + 1) & (m->nslots - 1);
            m->slots[i].row = -1;
        }
    } else if (m->slots != NULL) {
        memset(m->slots, 0xFF, sizeof(Slot) * (size_t)m->nslots);
    }
    m->n = 0;
    m->arena_len = 0;
    m->rarena_len = 0;
}

/* The storage of the last table freed, taken by the next one made: a table is made and freed
 * per document, and the pages of a large one would otherwise go back to the OS and be faulted
 * in again by the next (a quarter of the time of a file of distinct DOIs, issue 15). Only the
 * storage fields of this Mentions are used; at most SPARE_MAX bytes are kept. */
static Mentions spare;
#define SPARE_MAX ((size_t)64 << 20)

static void store_move(Mentions *to, Mentions *from)
{
    to->counts = from->counts, to->offsets = from->offsets, to->lines = from->lines, to->masks = from->masks;
    to->hashes = from->hashes, to->koff = from->koff, to->klen = from->klen, to->roff = from->roff, to->rlen = from->rlen;
    to->cap = from->cap, to->arena = from->arena, to->arena_cap = from->arena_cap, to->rarena = from->rarena;
    to->rarena_cap = from->rarena_cap, to->slots = from->slots, to->nslots = from->nslots;
    from->counts = from->offsets = from->lines = NULL, from->masks = NULL, from->hashes = NULL;
    from->koff = from->klen = from->roff = from->rlen = NULL, from->arena = from->rarena = NULL, from->slots = NULL;
    from->cap = from->arena_cap = from->rarena_cap = from->nslots = 0;
}

static void store_free(Mentions *m)
{
    PyMem_Free(m->counts);
    PyMem_Free(m->offsets);
    PyMem_Free(m->lines);
    PyMem_Free(m->masks);
    PyMem_Free(m->hashes);
    PyMem_Free(m->koff);
    PyMem_Free(m->klen);
    PyMem_Free(m->roff);
    PyMem_Free(m->rlen);
    PyMem_Free(m->arena);
    PyMem_Free(m->rarena);
    PyMem_Free(m->slots);
    Mentions none = {0};
    store_move(m, &none);
}

static size_t store_bytes(const Mentions *m)
{
    return (size_t)m->cap * (3 * sizeof(int64_t) + sizeof(int32_t) + sizeof(uint64_t) + 4 * sizeof(Py_ssize_t)) +
           (size_t)m->arena_cap + (size_t)m->rarena_cap + (size_t)m->nslots * sizeof(Slot);
}

static PyObject *Mentions_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Mentions *m = (Mentions *)type->tp_alloc(type, 0);
    if (m != NULL) {
        store_move(m, &spare);
        mentions_clear(m);
    }
    return (PyObject *)m;
}

static void Mentions_dealloc(Mentions *m)
{
    if (store_bytes(m) <= SPARE_MAX && m->cap > spare.cap) {
        mentions_clear(m); /* the spare's slots are all empty */
        store_free(&spare);
        store_move(&spare, m);
    }
    store_free(m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static Py_ssize_t Mentions_len(Mentions *m) { return m->n; }

static int grow(void **p, Py_ssize_t cap, size_t size)
{
    void *q = PyMem_Realloc(*p, size * (size_t)cap);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    return 0;
}

static int rehash(Mentions *m, Py_ssize_t nslots)
{
    Slot *slots = PyMem_Malloc(sizeof(Slot) * (size_t)nslots);
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(slots, 0xFF, sizeof(Slot) * (size_t)nslots);
    for (Py_ssize_t r = 0; r < m->n; r++) {
        Py_ssize_t i = (Py_ssize_t)(m->hashes[r] & (uint64_t)(nslots - 1));
        while (slots[i].row >= 0)
            i = (i + 1) & (nslots - 1);
        slots[i].row = (int32_t)r;
        slots[i].tag = (uint32_t)(m->hashes[r] >> 32);
    }
    PyMem_Free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    return 0;
}

/* A hit's raw text B[s:e], sharing the DOI's own str when it is the key's bytes (a bare DOI
 * written in lower case): one str less per hit where every few bytes are a new DOI. */
static PyObject *raw_or_doi(const Buf *B, Py_ssize_t s, Py_ssize_t e, const char *key, Py_ssize_t klen, PyObject *doi)
{
    if (e - s == klen && memcmp(B->b + s, key, (size_t)klen) == 0)
        return Py_NewRef(doi);
    return raw_of(B, s, e);
}

/* Room for `more` bytes at the end of an arena. */
static int arena_room(char **arena, Py_ssize_t len, Py_ssize_t *cap, Py_ssize_t more)
{
    if (len + more <= *cap)
        return 0;
    Py_ssize_t c = *cap ? 2 * *cap : 1 << 16;
    while (c < len + more)
        c *= 2;
    if (grow((void **)arena, c, 1) < 0)
        return -1;
    *cap = c;
    return 0;
}

/* Keep the raw text of row r's first hit as UTF-8: the bytes B[s:e] (invalid ones as U+FFFD, as
 * raw_of reads them), or `given` when there is no buffer; nothing where it is the key itself. */
static int raw_keep(Mentions *m, Py_ssize_t r, const Buf *B, Py_ssize_t s, Py_ssize_t e, PyObject *given,
                    const char *key, Py_ssize_t klen)
{
    const char *u;
    Py_ssize_t un;
    if (B != NULL) {
        if (e - s == klen && memcmp(B->b + s, key, (size_t)klen) == 0) {
            m->rlen[r] = -1;
            return 0;
        }
        if (arena_room(&m->rarena, m->rarena_len, &m->rarena_cap, 4 * (e - s)) < 0)
            return -1;
        char *out = m->rarena + m->rarena_len;
        Py_ssize_t o = 0;
        for (Py_ssize_t i = s; i < e;) {
            cp_t c;
            i += dec(B->b, e, i, &c);
            o += utf8_encode(&c, 1, out + o);
        }
        m->roff[r] = m->rarena_len;
        m->rlen[r] = o;
        m->rarena_len += o;
        return 0;
    }
    if ((u = PyUnicode_AsUTF8AndSize(given, &un)) == NULL)
        return -1;
    if (un == klen && memcmp(u, key, (size_t)klen) == 0) {
        m->rlen[r] = -1;
        return 0;
    }
    if (arena_room(&m->rarena, m->rarena_len, &m->rarena_cap, un) < 0)
        return -1;
    memcpy(m->rarena + m->rarena_len, u, (size_t)un);
    m->roff[r] = m->rarena_len;
    m->rlen[r] = un;
    m->rarena_len += un;
    return 0;
}

/* Count one hit of the DOI whose canonical form is the UTF-8 `key`: bytes in C arrays only, the
 * Python objects made when the rows are taken (or none at all, by take_columns). */
static int mentions_add(Mentions *m, const char *key, Py_ssize_t klen, int64_t offset, int64_t line, int form, const Buf *B,
                        Py_ssize_t s, Py_ssize_t e, PyObject *given)
{
    if (m->n >= INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too many DOIs in one mention table");
        return -1;
    }
    if (2 * (m->n + 1) > m->nslots && rehash(m, m->nslots ? 2 * m->nslots : 4096) < 0)
        return -1;
    uint64_t h = fnv1a(key, klen);
    uint32_t tag = (uint32_t)(h >> 32);
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)(m->nslots - 1));
    for (;;) {
        Py_ssize_t r = m->slots[i].row;
        if (r < 0)
            break;
        if (m->slots[i].tag == tag && m->hashes[r] == h && m->klen[r] == klen && memcmp(m->arena + m->koff[r], key, (size_t)klen) == 0) {
            m->counts[r]++;
            m->masks[r] |= 1 << form;
            if (offset < m->offsets[r]) {
                if (raw_keep(m, r, B, s, e, given, key, klen) < 0)
                    return -1;
                m->offsets[r] = offset;
                m->lines[r] = line;
            }
            return 0;
        }
        i = (i + 1) & (m->nslots - 1);
    }
    if (m->n == m->cap) {
        Py_ssize_t cap = m->cap ? 2 * m->cap : 1024;
        if (grow((void **)&m->counts, cap, sizeof(int64_t)) < 0 || grow((void **)&m->offsets, cap, sizeof(int64_t)) < 0 ||
            grow((void **)&m->lines, cap, sizeof(int64_t)) < 0 ||
            grow((void **)&m->masks, cap, sizeof(int32_t)) < 0 || grow((void **)&m->hashes, cap, sizeof(uint64_t)) < 0 ||
            grow((void **)&m->koff, cap, sizeof(Py_ssize_t)) < 0 || grow((void **)&m->klen, cap, sizeof(Py_ssize_t)) < 0 ||
            grow((void **)&m->roff, cap, sizeof(Py_ssize_t)) < 0 || grow((void **)&m->rlen, cap, sizeof(Py_ssize_t)) < 0)
            return -1;
        m->cap = cap;
    }
    if (arena_room(&m->arena, m->arena_len, &m->arena_cap, klen) < 0)
        return -1;
    Py_ssize_t r = m->n;
    if (raw_keep(m, r, B, s, e, given, key, klen) < 0)
        return -1;
    m->n++;
    memcpy(m->arena + m->arena_len, key, (size_t)klen);
    m->koff[r] = m->arena_len;
    m->klen[r] = klen;
    m->arena_len += klen;
    m->hashes[r] = h;
    m->counts[r] = 1;
    m->offsets[r] = offset;
    m->lines[r] = line;
    m->masks[r] = 1 << form;
    m->slots[i].row = (int32_t)r;
    m->slots[i].tag = tag;
    return 0;
}

/* The rows' order when taken: grouped by the hash bucket of their DOI (bucket_of), first-seen
 * within a bucket. Fills row[j] (the row at place j) and at[0..buckets] (bucket b's places are
 * [at[b], at[b + 1])); the caller frees both. */
static int mentions_order(const Mentions *m, Py_ssize_t buckets, Py_ssize_t **row, Py_ssize_t **at)
{
    Py_ssize_t n = m->n;
    Py_ssize_t *of = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    Py_ssize_t *next = PyMem_Calloc((size_t)buckets + 1, sizeof(Py_ssize_t));
    *row = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    *at = PyMem_Calloc((size_t)buckets + 1, sizeof(Py_ssize_t));
    if (!of || !next || !*row || !*at) {
        PyMem_Free(of);
        PyMem_Free(next);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        of[i] = (Py_ssize_t)(m->hashes[i] % (uint64_t)buckets);
        (*at)[of[i] + 1]++;
    }
    for (Py_ssize_t b = 0; b < buckets; b++)
        (*at)[b + 1] += (*at)[b];
    memcpy(next, *at, sizeof(Py_ssize_t) * (size_t)(buckets + 1));
    for (Py_ssize_t i = 0; i < n; i++)
        (*row)[next[of[i]]++] = i;
    PyMem_Free(of);
    PyMem_Free(next);
    return 0;
}

static PyObject *bounds_list(const Py_ssize_t *at, Py_ssize_t buckets)
{
    PyObject *bounds = PyList_New(buckets + 1);
    for (Py_ssize_t b = 0; bounds != NULL && b <= buckets; b++) {
        PyObject *v = PyLong_FromSsize_t(at[b]);
        if (v == NULL)
            Py_CLEAR(bounds);
        else
            PyList_SET_ITEM(bounds, b, v);
    }
    return bounds;
}

static int buckets_arg(PyObject *args, Py_ssize_t *buckets)
{
    *buckets = 1;
    if (!PyArg_ParseTuple(args, "|n", buckets))
        return -1;
    if (*buckets < 1) {
        PyErr_SetString(PyExc_ValueError, "buckets must be positive");
        return -1;
    }
    return 0;
}

/* take(buckets=1) -> (dois, counts, first_offsets, first_raws, form_masks, first_lines, bounds): the rows
 * grouped by the hash bucket of their DOI (bucket_of), in first-seen order within a bucket;
 * bucket b's rows are [bounds[b], bounds[b + 1]). The table is emptied. */
static PyObject *Mentions_take(Mentions *m, PyObject *args)
{
    Py_ssize_t buckets, *row = NULL, *at = NULL, n = m->n;
    if (buckets_arg(args, &buckets) < 0)
        return NULL;
    PyObject *dois = PyList_New(n), *raws = PyList_New(n), *counts = PyList_New(n), *offsets = PyList_New(n),
             *masks = PyList_New(n), *lines = PyList_New(n), *bounds = NULL, *out = NULL;
    if (!dois || !raws || !counts || !offsets || !masks || !lines || mentions_order(m, buckets, &row, &at) < 0 ||
        !(bounds = bounds_list(at, buckets)))
        goto done;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        PyObject *d = PyUnicode_DecodeUTF8(m->arena + m->koff[i], m->klen[i], "strict");
        PyObject *r = d == NULL || m->rlen[i] < 0 ? Py_XNewRef(d)
                                                  : PyUnicode_DecodeUTF8(m->rarena + m->roff[i], m->rlen[i], "strict");
        PyObject *a = PyLong_FromLongLong(m->counts[i]), *b = PyLong_FromLongLong(m->offsets[i]),
                 *c = PyLong_FromLong(m->masks[i]);
        PyObject *l = m->lines[i] < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(m->lines[i]);
        PyList_SET_ITEM(dois, j, d);
        PyList_SET_ITEM(raws, j, r);
        PyList_SET_ITEM(counts, j, a);
        PyList_SET_ITEM(offsets, j, b);
        PyList_SET_ITEM(masks, j, c);
        PyList_SET_ITEM(lines, j, l);
        if (!d || !r || !a || !b || !c || !l)
            goto done; /* a NULL item of a list is safe to free */
    }
    out = Py_BuildValue("(OOOOOOO)", dois, counts, offsets, raws, masks, lines, bounds);
    if (out != NULL)
        mentions_clear(m);
done:
    PyMem_Free(row);
    PyMem_Free(at);
    Py_XDECREF(dois);
    Py_XDECREF(raws);
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_XDECREF(masks);
    Py_XDECREF(lines);
    Py_XDECREF(bounds);
    return out;
}

/* One Arrow string column of the rows in `row` order as (offsets, data) bytes: int32 offsets
 * (Arrow's string layout), the keys' bytes or (raw) the raw texts'. */
static int string_column(const Mentions *m, const Py_ssize_t *row, int raw, PyObject **offs, PyObject **data)
{
    Py_ssize_t n = m->n, total = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        total += raw && m->rlen[i] >= 0 ? m->rlen[i] : m->klen[i];
    }
    if (total > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "more than 2 GiB of text in one column");
        return -1;
    }
    *offs = PyBytes_FromStringAndSize(NULL, 4 * (n + 1));
    *data = PyBytes_FromStringAndSize(NULL, total);
    if (*offs == NULL || *data == NULL)
        return -1;
    int32_t *o = (int32_t *)PyBytes_AS_STRING(*offs);
    char *d = PyBytes_AS_STRING(*data);
    Py_ssize_t at = 0;
    o[0] = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        const char *src = raw && m->rlen[i] >= 0 ? m->rarena + m->roff[i] : m->arena + m->koff[i];
        Py_ssize_t len = raw && m->rlen[i] >= 0 ? m->rlen[i] : m->klen[i];
        memcpy(d + at, src, (size_t)len);
        at += len;
        o[j + 1] = (int32_t)at;
    }
    return 0;
}

/* take_columns(buckets=1) -> (doi_offsets, doi_data, counts, first_offsets, raw_offsets, raw_data,
 * form_masks, first_lines, lines_valid, bounds): take's rows as the buffers of Arrow arrays —
 * strings as int32 offsets and UTF-8 data, int64 counts, offsets and lines, int32 masks, a
 * validity bitmap of the lines (None when none is missing) — with no Python object per row. */
static PyObject *Mentions_take_columns(Mentions *m, PyObject *args)
{
    Py_ssize_t buckets, *row = NULL, *at = NULL, n = m->n;
    PyObject *doff = NULL, *ddata = NULL, *roffs = NULL, *rdata = NULL, *counts = NULL, *offsets = NULL, *masks = NULL,
             *lines = NULL, *valid = NULL, *bounds = NULL, *out = NULL;
    if (buckets_arg(args, &buckets) < 0 || mentions_order(m, buckets, &row, &at) < 0 || !(bounds = bounds_list(at, buckets)) ||
        string_column(m, row, 0, &doff, &ddata) < 0 || string_column(m, row, 1, &roffs, &rdata) < 0 ||
        !(counts = PyBytes_FromStringAndSize(NULL, 8 * n)) || !(offsets = PyBytes_FromStringAndSize(NULL, 8 * n)) ||
        !(masks = PyBytes_FromStringAndSize(NULL, 4 * n)) || !(lines = PyBytes_FromStringAndSize(NULL, 8 * n)))
        goto done;
    int64_t *c = (int64_t *)PyBytes_AS_STRING(counts), *o = (int64_t *)PyBytes_AS_STRING(offsets),
            *l = (int64_t *)PyBytes_AS_STRING(lines);
    int32_t *k = (int32_t *)PyBytes_AS_STRING(masks);
    Py_ssize_t missing = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = row[j];
        c[j] = m->counts[i];
        o[j] = m->offsets[i];
        k[j] = m->masks[i];
        l[j] = m->lines[i] < 0 ? 0 : m->lines[i];
        missing += m->lines[i] < 0;
    }
    if (missing) {
        if (!(valid = PyBytes_FromStringAndSize(NULL, (n + 7) / 8)))
            goto done;
        unsigned char *v = (unsigned char *)PyBytes_AS_STRING(valid);
        memset(v, 0, (size_t)(n + 7) / 8);
        for (Py_ssize_t j = 0; j < n; j++)
            if (m->lines[row[j]] >= 0)
                v[j >> 3] |= (unsigned char)(1 << (j & 7));
    } else {
        valid = Py_NewRef(Py_None);
    }
    out = Py_BuildValue("(OOOOOOOOOO)", doff, ddata, counts, offsets, roffs, rdata, masks, lines, valid, bounds);
    if (out != NULL)
        mentions_clear(m);
done:
    PyMem_Free(row);
    PyMem_Free(at);
    Py_XDECREF(doff);
    Py_XDECREF(ddata);
    Py_XDECREF(roffs);
    Py_XDECREF(rdata);
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_XDECREF(masks);
    Py_XDECREF(lines);
    Py_XDECREF(valid);
    Py_XDECREF(bounds);
    return out;
}

/* add(doi, offset, form, raw, line=-1): count one hit found by the Python matcher (HTML, PDF text). */
static PyObject *Mentions_add(Mentions *m, PyObject *args)
{
    PyObject *doi, *raw;
    long long offset, line = -1;
    int form;
    if (!PyArg_ParseTuple(args, "ULiU|L", &doi, &offset, &form, &raw, &line))
        return NULL;
    if (form < 0 || form >= F_COUNT) {
        PyErr_SetString(PyExc_ValueError, "form index out of range");
        return NULL;
    }
    Py_ssize_t kn;
    const char *kb = PyUnicode_AsUTF8AndSize(doi, &kn);
    if (kb == NULL || mentions_add(m, kb, kn, (int64_t)offset, line < 0 ? -1 : (int64_t)line, form, NULL, 0, 0, raw) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Mentions_methods[] = {
    {"add", (PyCFunction)Mentions_add, METH_VARARGS,
     "add(doi, offset, form, raw, line=-1): count one hit of `doi` (canonical) at `offset` (on 1-based `line`, -1 for none), form index `form`."},
    {"take", (PyCFunction)Mentions_take, METH_VARARGS,
     "take(buckets=1) -> (dois, counts, first_offsets, first_raws, form_masks, first_lines, bounds), grouped by bucket; empties the table."},
    {"take_columns", (PyCFunction)Mentions_take_columns, METH_VARARGS,
     "take_columns(buckets=1) -> take's rows as Arrow buffers (doi_offsets, doi_data, counts, first_offsets, raw_offsets, raw_data, form_masks, first_lines, lines_valid, bounds); empties the table."},
    {NULL}};
static PySequenceMethods Mentions_seq = {.sq_length = (lenfunc)Mentions_len};
static PyTypeObject MentionsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "extractor._cscan.Mentions",
    .tp_basicsize = sizeof(Mentions),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The distinct DOIs of one document: count, first offset and raw text, display forms.",
    .tp_new = Mentions_new,
    .tp_dealloc = (destructor)Mentions_dealloc,
    .tp_methods = Mentions_methods,
    .tp_as_sequence = &Mentions_seq,
};

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
    Mentions *mentions;
    PyObject *hits;
    Py_ssize_t reported, last_end, too_long;
    int64_t line_base;  /* newlines before byte lb0 of the data; -1: no line numbers */
    Py_ssize_t lb;      /* newlines are counted up to this byte ... */
    int64_t lc;         /* ... and there are lc of them from lb0 to it */
    PyObject *dropped;  /* a list for (anchor, token end) of each candidate dropped as too long, or NULL */
    struct PFound *collect; /* PDF text: hits go here, unfiltered, instead of to the table and list */
} Sink;

static int collect_hit(struct PFound *f, Py_ssize_t start, Py_ssize_t end, int form, const cp_t *name, Py_ssize_t nn);

/* How many newlines bytes [a, b) of the data hold: 16 bytes a step where SSE2 is (this runs
 * over every byte of a text file, for its line numbers). */
static Py_ssize_t count_newlines(const unsigned char *d, Py_ssize_t a, Py_ssize_t b)
{
    Py_ssize_t n = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    while (a + 16 <= b) {
        n += __builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(d + a)), nl)));
        a += 16;
    }
#endif
    for (; a < b; a++)
        n += d[a] == '\n';
    return n;
}

/* Decode the run (characters up to whitespace, '"' or a control) from byte q into s[a:],
 * until it has `want` characters; returns how many it has. */
static Py_ssize_t decode_run(const Buf *B, Py_ssize_t *qpos, cp_t *s, Py_ssize_t *bo, Py_ssize_t a, Py_ssize_t have, Py_ssize_t want)
{
    Py_ssize_t i = *qpos;
    while (have < want && i < B->n) {
        cp_t c;
        int k = dec(B->b, B->n, i, &c);
        if (run_end(c))
            break;
        s[a + have] = c;
        bo[a + have] = i;
        have++;
        i += k;
    }
    *qpos = i;
    return have;
}

static int emit_key(Sink *k, const Buf *B, Py_ssize_t start, Py_ssize_t end, int form, const char *kb, Py_ssize_t kn);

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
    char kb[4 * (MAX_LOGICAL + 8)];
    Py_ssize_t kn = 0;
    int plain = 1;
    for (Py_ssize_t i = 0; i < nn; i++)
        if (name[i] >= 0x80 || name[i] == '%') {
            plain = 0;
            break;
        }
    if (plain) {
        /* ASCII with no escape: the key is the name with A-Z folded */
        for (Py_ssize_t i = 0; i < nn; i++)
            kb[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
        kn = nn;
    } else {
        cp_t key[MAX_LOGICAL + 8];
        Py_ssize_t cn = canonical(name, nn, key);
        kn = utf8_encode(key, cn, kb);
    }
    return emit_key(k, B, start, end, form, kb, kn);
}

/* A hit of B[start:end) with its canonical key: counted in the table and/or listed, with its
 * offset (bytes or characters, + base) and its line. */
static int emit_key(Sink *k, const Buf *B, Py_ssize_t start, Py_ssize_t end, int form, const char *kb, Py_ssize_t kn)
{
    Py_ssize_t at = start, to = end;
    if (k->chars) {
        /* count the characters (lead bytes) since the last hit; a URL hit that holds the one
         * before it starts before it (fuzz/corpus/cmatcher/found-unordered-spans): count back */
        for (; k->cb < start; k->cb++)
            k->cc += (B->b[k->cb] & 0xC0) != 0x80;
        while (k->cb > start) {
            k->cb--;
            k->cc -= (B->b[k->cb] & 0xC0) != 0x80;
        }
        at = k->cc;
        to = at;
        for (Py_ssize_t i = start; i < end; i++)
            to += (B->b[i] & 0xC0) != 0x80;
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
    if (k->mentions != NULL)
        rc = mentions_add(k->mentions, kb, kn, k->base + at, line, form, B, start, end, NULL);
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
     * that is neither a tag-name character nor '/' ends any such name. Read 32, 64, then 128
     * characters for such a cut before the short window: a list of DOIs joined by commas reads
     * each DOI and the next, not 256 characters a DOI (issue 15). */
    for (Py_ssize_t want = FIRST_WINDOW; early && want < SHORT_WINDOW && off + SHORT_WINDOW + 1 <= MAX_LOGICAL; want *= 2) {
        have = decode_run(B, qq, s, bo, off, have, want);
        if (have < want)
            return have; /* the run ends before the window does */
        Py_ssize_t c = first_cut(s + off, have, form);
        for (Py_ssize_t t = c + 1; t < have; t++)
            if (!(az_ci(s[off + t]) || is_digit(s[off + t]) || s[off + t] == ':' || s[off + t] == '_' ||
                  s[off + t] == '.' || s[off + t] == '-' || s[off + t] == '/')) {
                *cut = c;
                return have;
            }
    }
    have = decode_run(B, qq, s, bo, off, have, SHORT_WINDOW + 1);
    if (have > SHORT_WINDOW && first_cut(s + off, have, form) >= SHORT_WINDOW) {
        have = decode_run(B, qq, s, bo, off, have, MAX_DOI_CHARS + 1);
        if (have > MAX_DOI_CHARS && first_cut(s + off, have, form) >= MAX_DOI_CHARS) {
            Py_ssize_t i = *qq;
            while (i < B->n) {
                cp_t c;
                int k = dec(B->b, B->n, i, &c);
                if (run_end(c))
                    break;
                i += k;
            }
            *skip = i;
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
    return emit(k, B, off[len - 1], e, F_SHORT, name, 3 + cn);
}

/* The display form of the DOI whose anchor is at p — "10.", `first` digits of the registrant's
 * first part, separator `sep` — and where its display text starts, or -1 when it is no DOI
 * (find._Scanner.scan; spec §2). */
static inline int anchor_form(const Buf *B, Py_ssize_t p, char sep, Py_ssize_t first, int pdf, Py_ssize_t *startp)
{
    int form = left_context(B, p, startp, pdf);
    if (form < 0 || (sep == ':' && form != F_EIDR))
        return -1;
    if (form == F_EIDR && sep != ':')
        form = F_URN;
    if (!IS_LABELLED(form) && first < 4)
        return -1; /* bare 10.2.1/, 10.5/100 and IP ranges are not DOIs */
    if (form == F_BARE && sep != '/')
        form = F_PERCENT;
    return form;
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
 * when known, else -1. *n_raw: that end in s (the hit's end in the text). Returns the name's
 * length once EIDR's ":" is read as "/" and a shields.io badge's escapes are undone, 0 when the
 * suffix is empty. */
static inline Py_ssize_t finish_name(const Buf *B, cp_t *s, Py_ssize_t L, Py_ssize_t A, int form, Py_ssize_t start, Py_ssize_t p,
                              Py_ssize_t cut, Py_ssize_t *n_raw)
{
    static cp_t ub[LEFT_WINDOW + 8]; /* the GIL is held: one scan at a time, as for scan()'s buffers */
    Py_ssize_t ubn = 0;
    if (IS_URL(form))
        for (Py_ssize_t i = start; i < p && ubn < LEFT_WINDOW + 4;)
            i += dec(B->b, p, i, &ub[ubn++]);
    Py_ssize_t nn = end_of_name(s, L, form, ub, ubn, cut);
    *n_raw = nn;
    if (nn <= A)
        return 0;
    if (form == F_EIDR) {
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

static int scan(const Buf *B, Sink *k)
{
    const unsigned char *b = B->b;
    /* Anchors before lo are passed over, as after a hit that ended there: a window resumes
     * where the hits of the window before it ended, with the whole text's phase (issue 15) */
    Py_ssize_t n = B->n, pos = 0, last_end = k->lo;
    static cp_t s[RUN_CAP];
    static Py_ssize_t bo[RUN_CAP];
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
             * same way: passed over whole, so "10.10.10…" costs linear time (issue 15) */
            pos = j;
            continue;
        }
        pos = q;
        if (p < last_end)
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
        Py_ssize_t raw, nn = finish_name(B, s, L, A, form, start, p, cut < 0 ? -1 : A + cut, &raw);
        if (nn == 0)
            continue;
        Py_ssize_t end = bo[raw];
        last_end = end;
        if (emit(k, B, start, end, form, s, nn) < 0)
            return -1;
    }
    return 0;
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


/* ---- PDF text (spec §5): find._Scanner with pdf=True, and pdf.join_pieces -------------------
 *
 * The plain scan's anchor, left-context, end and key rules, with what PDF extraction adds: a
 * space or one line break inside the prefix ("10. 1016/", "10.\n1371/"), resolvers broken across
 * a line, and DOIs joined across line breaks, column gaps and spaces where the evidence says the
 * break is inside the DOI. Like find._hits, a window is read once and, when some break was left
 * unjoined on a guess, read again with what the document says about its own DOIs (pdf.Evidence:
 * the sets of its keys, shapes and parent keys). Positions are bytes; the rules that count
 * characters (columns, line and token bounds) count them. tests/test_cscan.py holds the result
 * to find_spans(…, "pdf").
 */

#define MAX_JOINS 6
#define MAX_LINE 1000
#define COLUMN_SLACK 4
#define HANGING_INDENT 12
#define NEXT_TOKEN 300

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
 * leading zero alone on its line, or before a running header ("154 A. Sundström"). */
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
    return k > j && b[k] >= 'A' && b[k] <= 'Z';
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

/* pdf._VIEW_TAIL.search(s) starting before `before`: a publisher's view segment at the end. */
static int view_tail(const cp_t *s, Py_ssize_t n, Py_ssize_t before)
{
    static const char *const W[] = {"abstract", "full", "pdf", "epdf", "pdfdirect", "fulltext", "html", "references",
                                    "suppinfo", "citedby", "figures", "tables", "download", NULL};
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

static inline int pdf_hyphen(cp_t c) { return c == 0x2010 || c == 0x2011 || c == 0x2012 || c == 0x2013 || c == 0x2212; }

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

/* Whether some rule of pdf.DEHYPHENATION_RULES may rewrite the key u[0:n] (ASCII-folded; every
 * rule ignores case): a prefilter that lets through every key a rule could touch, so that the
 * Python rules run only for those. One clause per rule, in the table's order; DEHYPHENATION_RULES
 * (their count is checked by native.py) and the examples of tests/test_cscan.py keep it whole. */
#define N_DEHYPHENATION_RULES 12
static int may_rehyphenate(const char *u, Py_ssize_t n)
{
    const char *slash = memchr(u, '/', (size_t)n);
    if (slash == NULL)
        return 0;
    const char *x = slash + 1, *end = u + n;
    Py_ssize_t sn = end - x;
    for (const char *c = u; c < end; c++)
        if ((unsigned char)*c >= 0x80)
            return 1; /* the rules' \d and IGNORECASE reach past ASCII (Arabic-Indic digits, ſ, ı, K) */
#define AT(i) ((i) < sn ? x[i] : 0)
#define DIGIT(c) ((c) >= '0' && (c) <= '9')
    if (DIGIT(AT(0)))
        return 1; /* ISSN runs (1, 10), Lippincott's blocks (7) */
    if (sn >= 6 && memcmp(x, "(sici)", 6) == 0)
        return 1; /* 1 */
    if (AT(0) == 's' && DIGIT(AT(1)))
        return 1; /* 1, Springer (4, 5) */
    if (AT(0) == 'j' && AT(1) == '.' && DIGIT(AT(2)))
        return 1; /* Blackwell (2) */
    if (memchr(x, '>', (size_t)sn) || memchr(x, '(', (size_t)sn))
        return 1; /* the SICI check (3), Elsevier's item number (9) */
    for (const char *c = x; c + 5 <= end; c++)
        if (c[0] == ':' && c[1] == ':' && c[2] == 'a' && c[3] == 'i' && c[4] == 'd')
            return 1; /* a SICI contribution id (8) */
    if ((slash - u == 7 && memcmp(u, "10.1055", 7) == 0) || (slash - u == 7 && memcmp(u, "10.1146", 7) == 0))
        return 1; /* Thieme (11), Annual Reviews (12) */
    if (sn >= 16 && sn <= 19) { /* Baywood/SAGE's four blocks of four, two dashes at least (6) */
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

/* What a document says about its own DOIs (pdf.Evidence). */
typedef struct {
    PyObject *dois, *shapes, *parents;
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

typedef struct {
    Py_ssize_t *here, *below;
    Py_ssize_t hcap, bcap;
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
    Py_ssize_t back = chars_back(B, at, MAX_LINE), line_start = 0;
    for (Py_ssize_t i = at; i > back; i--)
        if (B->b[i - 1] == '\n') {
            line_start = i;
            break;
        }
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
        if (last == '.' && page_number(B, line, chars_on(B, line, 8)))
            return 0;
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
    if (ev == NULL || (r = shape_in(ev->shapes, joined)) <= 0)
        goto out;
    /* the shape of this registrant's DOIs joined, and not alone */
    PyObject *alone = complete_key(s, n);
    int seen = shape_in(ev->shapes, alone);
    Py_XDECREF(alone);
    if (seen < 0)
        r = -1;
    else if (seen)
        r = 0;
    else
        *guess = 0;
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

/* pdf.join_pieces: extend the DOI in L across the breaks that fall inside it. 0, or -1. */
static int join_pieces(const Buf *B, Logical *L, const Evidence *ev, BlockColumns *C, int *uncertain)
{
    cp_t t[NEXT_TOKEN];
    for (int j = 0; j < MAX_JOINS; j++) {
        Py_ssize_t at = L->pb[L->np - 1];
        if (new_below(B, at))
            break;
        Py_ssize_t cont = continuation(B, at, C);
        if (cont == -2)
            return -1;
        cp_t last = L->s[L->n - 1];
        if (cont < 0 && (last == '-' || last == '/')) {
            Py_ssize_t a = suffix_at(L->s, L->n);
            if (a >= 0 && a < L->n) {
                /* pdfminer sets its text boxes apart by a blank line: a DOI that stops in "-" or
                 * "/", which no DOI ends with, goes on in the next box */
                Py_ssize_t e = box_break(B, at);
                if (e >= 0 && !page_number(B, e, B->n))
                    cont = e;
            }
        }
        if (cont < 0) {
            if (!(last == '-' || last == '/' || last == '.' || last == '>') && !has_opener(L->s, L->n))
                break; /* no space can be inside this DOI: the common case, at once */
            Py_ssize_t sp = at;
            while (sp < B->n && sp - at < 2 && (B->b[sp] == ' ' || B->b[sp] == '\t'))
                sp++;
            if (sp == at)
                break;
            Py_ssize_t m = next_token(B, sp, t);
            if (m == 0 || !space_join(L->s, L->n, t, m))
                break;
            if (add_run(B, L, sp) < 0) /* spaces or TABs inside the DOI (spec §5) */
                return -1;
            continue;
        }
        Py_ssize_t m = next_token(B, cont, t);
        if (m == 0)
            break;
        if (logical_room(L, 0) < 0)
            return -1;
        int guess, join = decide(B, L->s, L->n, t, m, cont, ev, &guess);
        if (join < 0)
            return -1;
        *uncertain |= guess;
        if (!join)
            break;
        if (add_run(B, L, cont) < 0)
            return -1;
    }
    return 0;
}

/* ---- the scan of PDF text ---- */

/* _ANCHOR_PDF at byte p ("10." there): 10\.(?:(?:[ \t]+(?:\r?\n[ \t]*)?|\r?\n[ \t]*)(?!10\.[0-9]))?
 * ([0-9]+(?:\.[0-9]+)*)(?:[ \t]?(/|%2[Ff]|:))? — 0 when it does not match; else 1 with the end
 * of the digits *e, the separator *sep (0 for none) and the suffix start *q, *first the digits of
 * the registrant's first part. */
static int pdf_anchor(const Buf *B, Py_ssize_t p, Py_ssize_t *e, char *sep, Py_ssize_t *q, Py_ssize_t *first)
{
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n, j = p + 3, w = j;
    /* either alternative is optional blanks, then an optional line break and its indent */
    while (w < n && (b[w] == ' ' || b[w] == '\t'))
        w++;
    Py_ssize_t w2 = w;
    if (w2 < n && b[w2] == '\r')
        w2++;
    if (w2 < n && b[w2] == '\n') {
        w2++;
        while (w2 < n && (b[w2] == ' ' || b[w2] == '\t'))
            w2++;
        w = w2;
    }
    if (w > j && w + 3 < n && b[w] == '1' && b[w + 1] == '0' && b[w + 2] == '.' && is_digit(b[w + 3]))
        w = j; /* "1–10. 10.1038/x": a page range ending in 10, then a DOI */
    if (!(w < n && is_digit(b[w])))
        return 0;
    Py_ssize_t i = w;
    while (i < n && is_digit(b[i]))
        i++;
    *first = i - w;
    while (i + 1 < n && b[i] == '.' && is_digit(b[i + 1])) {
        i++;
        while (i < n && is_digit(b[i]))
            i++;
    }
    *e = i;
    *sep = 0;
    Py_ssize_t at = i < n && (b[i] == ' ' || b[i] == '\t') ? i + 1 : i; /* [ \t]? before the separator */
    for (int tries = 0; tries < 2 && !*sep; tries++, at = i) {
        if (at < n && b[at] == '/')
            *sep = '/', *q = at + 1;
        else if (at + 2 < n && b[at] == '%' && b[at + 1] == '2' && (b[at + 2] == 'F' || b[at + 2] == 'f'))
            *sep = '%', *q = at + 3;
        else if (at < n && b[at] == ':')
            *sep = ':', *q = at + 1;
    }
    return 1;
}

/* The characters of bytes [a, z) into r (at most cap), back from z: r[0] is the last. */
static Py_ssize_t read_back(const Buf *B, Py_ssize_t a, Py_ssize_t z, cp_t *r, Py_ssize_t *off, Py_ssize_t cap)
{
    Py_ssize_t m = 0;
    while (z > a && m < cap) {
        z -= dec_back(B->b, z, &r[m]);
        off[m++] = z;
    }
    return m;
}

/* find._BROKEN_RESOLVER.search(text, p - 300, p) for a token "org/" or ".org/" of tn characters
 * before p: "doi.\norg/", "https://doi.\n.org/" or "doi.   " (a column gap) within 300 characters. */
static int broken_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t tn)
{
    cp_t r[301];
    Py_ssize_t off[301];
    Py_ssize_t m = read_back(B, 0, p, r, off, 300);
    if (!((tn == 4 && rlit(r, m, 0, "org/")) || (tn == 5 && rlit(r, m, 0, ".org/"))))
        return 0;
    /* doi\.?[ \t]*\r?\n[ \t]*(?:\.?org/)\Z */
    Py_ssize_t k = 4;
    if (k < m && r[k] == '.')
        k++;
    while (k < m && (r[k] == ' ' || r[k] == '\t'))
        k++;
    if (k < m && r[k] == '\n') {
        k++;
        if (k < m && r[k] == '\r')
            k++;
        while (k < m && (r[k] == ' ' || r[k] == '\t'))
            k++;
        if (k < m && r[k] == '.')
            k++;
        if (rlit(r, m, k, "doi"))
            return 1;
    }
    /* doi\.[ \t]{3,} anywhere in the window */
    for (Py_ssize_t e = 0; e + 7 <= m; e++) {
        if (!(r[e] == ' ' || r[e] == '\t'))
            continue;
        Py_ssize_t g = e;
        while (g < m && (r[g] == ' ' || r[g] == '\t'))
            g++;
        if (g - e >= 3 && rlit(r, m, g, "doi."))
            return 1;
        e = g - 1;
    }
    return 0;
}

/* find._LEFT_SPACED_RESOLVER.search in the 48 characters before p: a resolver whose DOI went to
 * the next line or after a space. Its form, with *startp, or -1. */
static int spaced_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t *startp)
{
    cp_t r[48];
    Py_ssize_t off[48];
    Py_ssize_t m = read_back(B, 0, p, r, off, 48), k = 0, nls = 0;
    while (k < m && is_space(r[k]) && (r[k] != '\n' || nls++ == 0))
        k++;
    if (!rlit(r, m, k, "doi.org/"))
        return -1;
    Py_ssize_t e = k + 8;
    int form = F_RESOLVER;
    if (rlit(r, m, e, "www."))
        e += 4;
    if (rlit(r, m, e, "dx.")) {
        e += 3;
        form = F_DX;
    }
    Py_ssize_t h = e, sl = 0;
    while (h < m && r[h] == '/' && sl < 4)
        h++, sl++;
    if (sl >= 1 && sl <= 3 && h < m && r[h] == ':') {
        if (rlit(r, m, h + 1, "https"))
            e = h + 6;
        else if (rlit(r, m, h + 1, "http"))
            e = h + 5;
    }
    *startp = off[e - 1];
    return form;
}

/* One reading of a PDF text window (find._Scanner.scan with pdf=True): its hits, unfiltered, to
 * out (and through the sink's collector, its shortDOIs); uncertain starts with them; counts of
 * candidates too long in the first pass only (find._hits: the second pass has no stats).
 * *order: whether the hits must be sorted (a DOI joined across lines leaves later pieces). */
static int pdf_pass(const Buf *B, Sink *k, PFound *out, const Evidence *ev, int first_pass, int *order)
{
    const unsigned char *b = B->b;
    Py_ssize_t n = B->n, pos = 0, resume = 0, last_end = k->lo;
    Logical L = {0};
    BlockColumns C = {0};
    Py_ssize_t *xa = NULL, *xb = NULL, nx = 0, xcap = 0, xcap1 = 0; /* later pieces of joined DOIs */
    int rc = -1;
    while ((pos = next_anchor(b, n, pos)) >= 0) {
        Py_ssize_t p = pos++;
        if (b[p + 2] != '.') {
            if (short_at(B, k, p) < 0)
                goto done;
            continue;
        }
        if (p < resume)
            continue;
        Py_ssize_t e, q = 0, first;
        char sep;
        if (!pdf_anchor(B, p, &e, &sep, &q, &first))
            continue;
        if (!sep) {
            /* a run with no separator: in PDF text "10.10. 1016/" has an anchor inside it */
            resume = e - 2 > p + 1 ? e - 2 : p + 1;
            continue;
        }
        resume = q;
        int inside = 0;
        for (Py_ssize_t x = 0; x < nx && !inside; x++)
            inside = xa[x] <= p && p < xb[x];
        if (p < last_end || inside)
            continue;
        Py_ssize_t start;
        int form = anchor_form(B, p, sep, first, 1, &start);
        if (form < 0)
            continue;
        int mine = p >= k->lo && p < k->hi && p >= k->rlo && p < k->rhi;
        Py_ssize_t A = q - p, qq, skip, cut;
        L.n = L.np = 0;
        if (logical_room(&L, A + MAX_DOI_CHARS + 2) < 0)
            goto done;
        for (Py_ssize_t t = 0; t < A; t++) {
            L.s[t] = b[p + t];
            L.bo[t] = p + t;
            L.be[t] = p + t + 1;
        }
        Py_ssize_t have = read_run(B, q, L.s, L.bo, A, form, &qq, &skip, &cut, 0);
        if (have < 0) {
            last_end = skip; /* dropped with the rest of its token, never truncated */
            if (first_pass && drop_token(k, p, skip) < 0)
                goto done;
            continue;
        }
        L.n = A + have;
        for (Py_ssize_t t = A; t < L.n; t++)
            L.be[t] = t + 1 < L.n ? L.bo[t + 1] : qq;
        int unc = 0;
        if (add_piece(&L, p, qq) < 0 || join_pieces(B, &L, ev, &C, &unc) < 0)
            goto done;
        if (unc && first_pass) {
            if (reserve((void **)&out->unc, &out->ucap, out->nu + 1, sizeof(Py_ssize_t)) < 0)
                goto done;
            out->unc[out->nu++] = start;
        }
        if (L.n > MAX_LOGICAL) {
            k->too_long += mine && first_pass;
            continue;
        }
        Py_ssize_t raw, nn = finish_name(B, L.s, L.n, A, form, start, p, -1, &raw);
        if (nn == 0)
            continue; /* an empty suffix */
        Py_ssize_t end = L.be[raw - 1];
        if (collect_hit(out, start, end, form, L.s, nn) < 0)
            goto done;
        /* the pieces up to the end: the first ends the hit's reading, later ones are passed over */
        Py_ssize_t kept = 0;
        while (kept < L.np && L.pa[kept] < end)
            kept++;
        last_end = L.pb[0] < end ? L.pb[0] : end;
        if (kept > 1 || nx) {
            Py_ssize_t m = 0;
            for (Py_ssize_t x = 0; x < nx; x++)
                if (xb[x] > p) {
                    xa[m] = xa[x];
                    xb[m++] = xb[x];
                }
            nx = m;
            if (reserve((void **)&xa, &xcap, nx + kept, sizeof(Py_ssize_t)) < 0 ||
                reserve((void **)&xb, &xcap1, nx + kept, sizeof(Py_ssize_t)) < 0)
                goto done;
            for (Py_ssize_t j = 1; j < kept; j++) {
                xa[nx] = L.pa[j];
                xb[nx++] = L.pb[j] < end ? L.pb[j] : end;
            }
        }
    }
    *order = nx > 0;
    rc = 0;
done:
    PyMem_Free(L.s);
    PyMem_Free(L.bo);
    PyMem_Free(L.be);
    PyMem_Free(L.pa);
    PyMem_Free(L.pb);
    PyMem_Free(C.here);
    PyMem_Free(C.below);
    PyMem_Free(xa);
    PyMem_Free(xb);
    return rc;
}

static int cmp_ssize(const void *x, const void *y)
{
    Py_ssize_t a = *(const Py_ssize_t *)x, b = *(const Py_ssize_t *)y;
    return (a > b) - (a < b);
}

static int cmp_phit(const void *x, const void *y)
{
    const PHit *a = x, *b = y;
    if (a->start != b->start)
        return (a->start > b->start) - (a->start < b->start);
    if (a->end != b->end)
        return (a->end > b->end) - (a->end < b->end);
    return (a->name > b->name) - (a->name < b->name); /* found first, first */
}

/* find._hits for PDF text: a first reading; a second with the document's evidence when some break
 * was left unjoined on a guess (spec §5). The hits to the sink's table and list, in find_spans'
 * order, keyed as find._PDF_KEYS keys them (`rekey`: the rehyphenation of pdf.rehyphenate, given
 * each canonical key). */
static int pdf_scan(const Buf *B, Sink *k, PyObject *rekey)
{
    PFound f1 = {0}, f2 = {0}, *fin = &f1;
    Evidence ev = {0};
    int order = 0, rc = -1;
    k->collect = &f1;
    if (pdf_pass(B, k, &f1, NULL, 1, &order) < 0)
        goto done;
    if (f1.n && f1.nu) {
        if ((ev.dois = PySet_New(NULL)) == NULL || (ev.shapes = PySet_New(NULL)) == NULL ||
            (ev.parents = PySet_New(NULL)) == NULL)
            goto done;
        qsort(f1.unc, (size_t)f1.nu, sizeof(Py_ssize_t), cmp_ssize);
        for (Py_ssize_t i = 0; i < f1.n; i++) {
            PHit *h = &f1.hit[i];
            PyObject *key = pdf_key(f1.names + h->name, h->len);
            int certain = bsearch(&h->start, f1.unc, (size_t)f1.nu, sizeof(Py_ssize_t), cmp_ssize) == NULL;
            int bad = key == NULL || evidence_add(&ev, key, certain) < 0;
            Py_XDECREF(key);
            if (bad)
                goto done;
        }
        k->collect = &f2;
        if (pdf_pass(B, k, &f2, &ev, 0, &order) < 0)
            goto done;
        fin = &f2;
    }
    k->collect = NULL;
    if (order)
        qsort(fin->hit, (size_t)fin->n, sizeof(PHit), cmp_phit);
    Py_ssize_t last = -1;
    for (Py_ssize_t i = 0; i < fin->n; i++) {
        PHit *h = &fin->hit[i];
        if (h->start >= k->hi)
            continue;
        last = h->end; /* the end of the last hit the window reports (windows.PythonMatcher) */
        if (h->start < k->rlo || h->start >= k->rhi)
            continue;
        PyObject *key = pdf_key(fin->names + h->name, h->len);
        Py_ssize_t kn;
        const char *kb = key == NULL ? NULL : PyUnicode_AsUTF8AndSize(key, &kn);
        if (kb != NULL && rekey != Py_None && may_rehyphenate(kb, kn)) {
            Py_SETREF(key, PyObject_GetItem(rekey, key));
            kb = key == NULL ? NULL : PyUnicode_AsUTF8AndSize(key, &kn);
        }
        int bad = kb == NULL || emit_key(k, B, h->start, h->end, h->form, kb, kn) < 0;
        Py_XDECREF(key);
        if (bad)
            goto done;
    }
    if (last > k->last_end)
        k->last_end = last;
    rc = 0;
done:
    k->collect = NULL;
    evidence_free(&ev);
    pfound_free(&f1);
    pfound_free(&f2);
    return rc;
}

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
    if (mentions != Py_None && !PyObject_TypeCheck(mentions, &MentionsType)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "mentions must be a Mentions table or None");
        return NULL;
    }
    if (hits != Py_None && !PyList_Check(hits)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "hits must be a list or None");
        return NULL;
    }
    k.base = base;
    k.mentions = mentions == Py_None ? NULL : (Mentions *)mentions;
    k.hits = hits == Py_None ? NULL : hits;
    Buf B = {(const unsigned char *)view.buf, view.len};
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
    return scan_call(args, kw, 1);
}

/* newlines(data, start, stop) -> how many newline bytes [start, stop) hold (line numbers). */
static PyObject *py_newlines(PyObject *self, PyObject *args)
{
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

/* A stable bucket for a DOI: FNV-1a (64 bit) of its UTF-8 bytes, modulo `buckets`. */
static PyObject *py_bucket_of(PyObject *self, PyObject *args)
{
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
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t a, b;
        memcpy(&a, offs + (start + i) * sizeof(int32_t), sizeof a);
        memcpy(&b, offs + (start + i + 1) * sizeof(int32_t), sizeof b);
        if (a < 0 || b < a || b > data.len) {
            Py_CLEAR(out);
            PyErr_SetString(PyExc_ValueError, "buckets_of: offsets out of range");
            goto done;
        }
        int32_t k = (int32_t)(fnv1a((const char *)data.buf + a, b - a) % (uint64_t)buckets);
        memcpy(o + i * sizeof k, &k, sizeof k);
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
 * Arrow would need (issue 14: they were half of the merge). */
static PyObject *py_group_mentions(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer src, rec, off, data, cnt, plc, frm;
    Py_ssize_t start, n;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*y*n", &src, &rec, &off, &data, &start, &cnt, &plc, &frm, &n))
        return NULL;
    PyObject *result = NULL, *o_first = NULL, *o_count = NULL, *o_place = NULL, *o_forms = NULL, *o_rows = NULL;
    int32_t *slots = NULL;
    if (n < 0 || n > INT32_MAX / 2 || start < 0 || src.len < n * 4 || rec.len < n * 4 || cnt.len < n * 8 ||
        plc.len < n * 8 || frm.len < n * 4 || (start + n + 1) * (Py_ssize_t)sizeof(int32_t) > off.len) {
        PyErr_SetString(PyExc_ValueError, "group_mentions: bad arguments");
        goto done;
    }
    const int32_t *s = (const int32_t *)src.buf, *r = (const int32_t *)rec.buf, *f = (const int32_t *)frm.buf;
    const int32_t *offs = (const int32_t *)off.buf + start;
    const int64_t *c = (const int64_t *)cnt.buf, *p = (const int64_t *)plc.buf;
    const char *d = (const char *)data.buf;
    for (Py_ssize_t i = 0; i <= n; i++)
        if (offs[i] < 0 || offs[i] > data.len || (i && offs[i] < offs[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "group_mentions: offsets out of range");
            goto done;
        }
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    slots = PyMem_Malloc(cap * sizeof *slots);
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
    memset(slots, 0xff, cap * sizeof *slots);
    int32_t *first = (int32_t *)PyBytes_AS_STRING(o_first), *forms = (int32_t *)PyBytes_AS_STRING(o_forms);
    int64_t *count = (int64_t *)PyBytes_AS_STRING(o_count), *place = (int64_t *)PyBytes_AS_STRING(o_place);
    int64_t *rows = (int64_t *)PyBytes_AS_STRING(o_rows);
    Py_ssize_t groups = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *key = d + offs[i];
        Py_ssize_t klen = offs[i + 1] - offs[i];
        uint64_t h = fnv1a(key, klen);
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
            if (s[j] == s[i] && r[j] == r[i] && offs[j + 1] - offs[j] == klen && memcmp(d + offs[j], key, klen) == 0) {
                count[g] += c[i];
                if (p[i] < place[g])
                    place[g] = p[i];
                forms[g] |= f[i];
                rows[g]++;
                break;
            }
            at = (at + 1) & (cap - 1);
        }
    }
    if (_PyBytes_Resize(&o_first, groups * 4) < 0 || _PyBytes_Resize(&o_count, groups * 8) < 0 ||
        _PyBytes_Resize(&o_place, groups * 8) < 0 || _PyBytes_Resize(&o_forms, groups * 4) < 0 ||
        _PyBytes_Resize(&o_rows, groups * 8) < 0)
        goto done;
    result = PyTuple_Pack(5, o_first, o_count, o_place, o_forms, o_rows);
done:
    PyMem_Free(slots);
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
    return result;
}

/* The C side of the tables that must equal the Python rules (checked by match/native.py). */
static PyObject *chars_where(int (*pred)(cp_t))
{
    Py_UCS4 buf[256];
    Py_ssize_t k = 0;
    for (cp_t c = 0; c <= 0x10FFFF && k < 256; c++)
        if (pred(c))
            buf[k++] = c;
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, k);
}
static int is_opener(cp_t c) { return opener(c); }
static int is_closer(cp_t c) { return opener_of(c) != 0; }
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
static PyObject *py_tables(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    Py_UCS4 pairs[16];
    Py_ssize_t k = 0;
    for (cp_t c = 0; c <= 0x10FFFF && k < 16; c++)
        if (opener_of(c)) {
            pairs[k++] = opener_of(c);
            pairs[k++] = c;
        }
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:i,s:i,s:i,s:i,s:i,s:i,s:N}", "trailing", chars_where(trailing),
                         "format", chars_where(format_char), "openers", chars_where(is_opener), "closers",
                         chars_where(is_closer), "pairs", PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, pairs, k),
                         "views", str_tuple(VIEWS), "rxiv", str_tuple(RXIV), "segments", str_tuple(SEGMENTS),
                         "media", str_tuple(MEDIA), "tail_rules", N_TAIL_RULES,
                         "max_doi_chars", MAX_DOI_CHARS, "short_window", SHORT_WINDOW, "left_window", LEFT_WINDOW,
                         "forms", F_COUNT, "dehyphenation_rules", N_DEHYPHENATION_RULES, "pdf_hyphens",
                         chars_where(pdf_hyphen));
}

/* ---- HTML views (spec §3, §5): match/html.py's html_views on UTF-8 bytes ------------------------
 *
 * The same three views — the text flow (entities decoded, inline tags transparent, other tags a
 * line break), the attribute values that may hold a DOI, the JSON of JSON `<script>` elements
 * (string escapes decoded) — built in one pass over the bytes with the same tag, attribute,
 * comment and raw-text rules, each with its map from view bytes to raw bytes. Character
 * references are decoded by the Python function given (html.unescape: its table of 2,231 names
 * and its numeric rules stay the one source); JSON escapes here, as jsonstr.unescape does.
 * The views are then searched by scan() (plain rules, as find.py searches them) and each hit
 * mapped back to the markup. tests/test_cscan.py checks the result against find_spans(…, "html").
 */

typedef struct {
    unsigned char *t; /* the view's text */
    Py_ssize_t tn, tcap;
    Py_ssize_t *seg; /* per segment: view start, raw start, raw length (0: copied verbatim) */
    Py_ssize_t sn, scap;
} HView;

static void hv_free(HView *v)
{
    PyMem_Free(v->t);
    PyMem_Free(v->seg);
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
        unsigned char *t = PyMem_Realloc(v->t, cap);
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
        memcpy(v->t + v->tn, s, len);
        hv_invalid(v->t + v->tn, len);
        v->tn += len;
        return 0;
    }
    if (v->sn + 1 > v->scap) {
        Py_ssize_t cap = v->scap * 2 + 64;
        Py_ssize_t *g = PyMem_Realloc(v->seg, cap * 3 * sizeof(Py_ssize_t));
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
    memcpy(v->t + v->tn, s, len);
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

/* _add_text: text with character references decoded by `unescape` (html.unescape). */
static int hv_text(HView *v, const unsigned char *b, Py_ssize_t a, Py_ssize_t z, PyObject *unescape)
{
    const unsigned char *amp = memchr(b + a, '&', z - a);
    if (amp == NULL)
        return hv_linear(v, b + a, z - a, a);
    Py_ssize_t pos = a, i = amp - b;
    while (i < z) {
        if (b[i] != '&') {
            const unsigned char *next = memchr(b + i, '&', z - i);
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
        int same = rn == m && memcmp(r, b + i, m) == 0;
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

/* _add_json: JSON text with its string escapes decoded. */
static int hv_json(HView *v, const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    Py_ssize_t pos = a, i = a;
    for (;;) {
        const unsigned char *bs = i < z ? memchr(b + i, '\\', z - i) : NULL;
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
    const unsigned char *p = from < n ? memchr(b + from, c, n - from) : NULL;
    return p == NULL ? -1 : p - b;
}

static Py_ssize_t find_str(const unsigned char *b, Py_ssize_t from, Py_ssize_t n, const char *s)
{
    Py_ssize_t sl = (Py_ssize_t)strlen(s);
    while (from + sl <= n) {
        Py_ssize_t p = find_byte(b, from, n, (unsigned char)s[0]);
        if (p < 0 || p + sl > n)
            return -1;
        if (memcmp(b + p, s, sl) == 0)
            return p;
        from = p + 1;
    }
    return -1;
}

static Py_ssize_t count_byte(const unsigned char *b, Py_ssize_t a, Py_ssize_t z, unsigned char c)
{
    Py_ssize_t k = 0;
    for (; a < z; a++)
        k += b[a] == c;
    return k;
}

#define MAX_TAG 8192 /* html.py's _MAX_TAG, in characters */

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
            Py_ssize_t q = i + 1;
            while (q < stop && b[q] != c)
                q++;
            if (q >= stop)
                return -1;
            i = q + 1;
            continue;
        }
        i++;
    }
    return -1;
}

static const char *const INLINE_NAMES[] = {
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark", "nobr",
    "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "ins", "del",
    "italic", "bold", "sc", "monospace", "underline", "overline", "roman", "sans-serif", "ext-link", "uri",
    "named-content", "styled-content", NULL};

static int name_is(const char *lower, Py_ssize_t n, const char *name)
{
    return (Py_ssize_t)strlen(name) == n && memcmp(lower, name, n) == 0;
}

static int is_inline(const char *lower, Py_ssize_t n)
{
    for (int i = 0; INLINE_NAMES[i] != NULL; i++)
        if (INLINE_NAMES[i][0] == lower[0] && name_is(lower, n, INLINE_NAMES[i]))
            return 1;
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

/* _add_attributes: each attribute value of b[a:z) that may hold a DOI, a line of the view.
 * _ATTR: ([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))? */
static int hv_attributes(HView *v, const unsigned char *b, Py_ssize_t a, Py_ssize_t z, PyObject *unescape)
{
    if (!attrs_may_hold(b, a, z))
        return 0;
    Py_ssize_t i = a;
    while (i < z) {
        unsigned c = b[i];
        if (ws(c) || c == '=' || c == '/' || c == '>' || c == '"' || c == '\'') {
            i++;
            continue;
        }
        while (i < z && !(ws(b[i]) || b[i] == '=' || b[i] == '/' || b[i] == '>' || b[i] == '"' || b[i] == '\''))
            i++;
        Py_ssize_t j = i;
        while (j < z && ws(b[j]))
            j++;
        if (j >= z || b[j] != '=')
            continue;
        j++;
        while (j < z && ws(b[j]))
            j++;
        Py_ssize_t vs = -1, ve = -1, after = -1;
        if (j < z && (b[j] == '"' || b[j] == '\'')) {
            Py_ssize_t q = j + 1;
            while (q < z && b[q] != b[j])
                q++;
            if (q < z)
                vs = j + 1, ve = q, after = q + 1;
        } else {
            Py_ssize_t q = j;
            while (q < z && !(ws(b[q]) || b[q] == '>' || b[q] == '"' || b[q] == '\''))
                q++;
            if (q > j)
                vs = j, ve = q, after = q;
        }
        if (vs < 0)
            continue; /* the name alone matched */
        if (value_may_hold(b, vs, ve)) {
            if (hv_text(v, b, vs, ve, unescape) < 0 || hv_seg(v, (const unsigned char *)"\n", 1, ve, 0) < 0)
                return -1;
        }
        i = after;
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

/* html_views: the flow, attribute and JSON views of b[0:n). */
static int build_views(const unsigned char *b, Py_ssize_t n, HView *flow, HView *attrs, HView *data, PyObject *unescape)
{
    Py_ssize_t pos = 0, next_gt = -1;
    int last_inline_close = 0;
    while (pos < n) {
        Py_ssize_t lt = find_byte(b, pos, n, '<');
        if (lt < 0)
            return hv_text(flow, b, pos, n, unescape);
        if (lt > pos) {
            if (hv_text(flow, b, pos, lt, unescape) < 0)
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
                Py_ssize_t dq = count_byte(b, lt, gt, '"'), sq = count_byte(b, lt, gt, '\'');
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
        if (!inl || (last_inline_close && !closing) || (name_is(lower, nn, "a") && closing)) {
            if (hv_seg(flow, (const unsigned char *)"\n", 1, lt, mend - lt) < 0)
                return -1;
        }
        last_inline_close = inl && closing;
        Py_ssize_t as = name_end, ae = mend - 1; /* the attribute text */
        if (!closing && ae > as && hv_attributes(attrs, b, as, ae, unescape) < 0)
            return -1;
        if (!closing && (name_is(lower, nn, "script") || name_is(lower, nn, "style") || name_is(lower, nn, "textarea") ||
                         name_is(lower, nn, "title"))) {
            char nm[16];
            memcpy(nm, lower, nn);
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
                if (hv_text(flow, b, pos, end, unescape) < 0)
                    return -1;
            }
            pos = end;
        }
    }
    return 0;
}

typedef struct {
    Py_ssize_t rs, re;
    int form;
    PyObject *doi;
    Py_ssize_t order; /* view, then place in it: ties keep it, as Python's stable sort */
} HSpan;

static int hspan_cmp(const void *x, const void *y)
{
    const HSpan *a = x, *b = y;
    if (a->rs != b->rs)
        return a->rs < b->rs ? -1 : 1;
    if (a->re != b->re)
        return a->re < b->re ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* What html_find found in a page: its hits sorted by raw position (their DOIs owned by `hits`,
 * the views' hit tuples), the raw spans of the candidates dropped as too long, and their count. */
typedef struct {
    HSpan *hs;
    Py_ssize_t nh;
    PyObject *hits;
    Py_ssize_t *drop; /* (anchor, token end) pairs, raw */
    Py_ssize_t nd;
    Py_ssize_t too_long;
} HFound;

static void hfound_free(HFound *f)
{
    PyMem_Free(f->hs);
    PyMem_Free(f->drop);
    Py_CLEAR(f->hits);
    f->hs = NULL;
    f->drop = NULL;
}

/* find_spans(…, "html") on b[0:n): the views built, each searched by scan(), hits mapped back. */
static int html_find(const unsigned char *b, Py_ssize_t n, PyObject *unescape, HFound *f)
{
    memset(f, 0, sizeof *f);
    HView v[3];
    memset(v, 0, sizeof v);
    PyObject *dropped = PyList_New(0);
    f->hits = PyList_New(0);
    int ok = f->hits != NULL && dropped != NULL && build_views(b, n, &v[0], &v[1], &v[2], unescape) == 0;
    Py_ssize_t firsts[4] = {0, 0, 0, 0}, dfirsts[4] = {0, 0, 0, 0};
    for (int w = 0; ok && w < 3; w++) {
        firsts[w] = PyList_GET_SIZE(f->hits);
        dfirsts[w] = PyList_GET_SIZE(dropped);
        if (v[w].tn == 0)
            continue;
        Sink k;
        memset(&k, 0, sizeof k);
        k.lo = 0, k.hi = v[w].tn, k.rlo = 0, k.rhi = v[w].tn + 1, k.line_base = -1;
        k.hits = f->hits;
        k.dropped = dropped;
        Buf B = {v[w].t, v[w].tn};
        ok = scan(&B, &k) == 0;
        f->too_long += k.too_long;
    }
    if (ok) {
        firsts[3] = f->nh = PyList_GET_SIZE(f->hits);
        dfirsts[3] = f->nd = PyList_GET_SIZE(dropped);
        f->hs = PyMem_Malloc((f->nh ? f->nh : 1) * sizeof(HSpan));
        f->drop = PyMem_Malloc((f->nd ? 2 * f->nd : 1) * sizeof(Py_ssize_t));
        if (f->hs == NULL || f->drop == NULL) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    for (int w = 0; ok && w < 3; w++) {
        for (Py_ssize_t i = firsts[w]; i < firsts[w + 1]; i++) {
            PyObject *t = PyList_GET_ITEM(f->hits, i); /* (start, end, form, doi, raw, line) */
            Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 0)), e = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 1));
            hv_to_raw(&v[w], s, e, &f->hs[i].rs, &f->hs[i].re);
            f->hs[i].form = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 2));
            f->hs[i].doi = PyTuple_GET_ITEM(t, 3);
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
        qsort(f->hs, f->nh, sizeof(HSpan), hspan_cmp);
    Py_XDECREF(dropped);
    for (int w = 0; w < 3; w++)
        hv_free(&v[w]);
    if (!ok)
        hfound_free(f);
    return ok ? 0 : -1;
}

/* html_spans(data, unescape) -> (spans, dropped, too_long) */
static PyObject *py_html_spans(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *unescape;
    if (!PyArg_ParseTuple(args, "y*O", &view, &unescape))
        return NULL;
    HFound f;
    PyObject *spans = NULL, *dropped = NULL, *result = NULL;
    if (html_find((const unsigned char *)view.buf, view.len, unescape, &f) == 0) {
        spans = PyList_New(f.nh);
        dropped = PyList_New(f.nd);
        int ok = spans != NULL && dropped != NULL;
        for (Py_ssize_t i = 0; ok && i < f.nh; i++) {
            PyObject *t = Py_BuildValue("(nniO)", f.hs[i].rs, f.hs[i].re, f.hs[i].form, f.hs[i].doi);
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
static PyObject *py_html_scan(PyObject *self, PyObject *args, PyObject *kw)
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
    else if (mentions != Py_None && !PyObject_TypeCheck(mentions, &MentionsType))
        bad = "mentions must be a Mentions table or None";
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
    k.mentions = mentions == Py_None ? NULL : (Mentions *)mentions;
    k.hits = hits == Py_None ? NULL : hits;
    Buf B = {(const unsigned char *)view.buf, view.len};
    HFound f;
    int rc = html_find(B.b, B.n, unescape, &f), found = rc == 0;
    Py_ssize_t last_end = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < f.nh; i++) {
        const HSpan *h = &f.hs[i];
        if (h->rs < k.lo || h->rs >= k.hi)
            continue;
        last_end = h->re; /* the end of the last hit chosen, as the window loop reads it */
        if (h->rs < k.rlo || h->rs >= k.rhi)
            continue;
        Py_ssize_t kn;
        const char *kb = PyUnicode_AsUTF8AndSize(h->doi, &kn);
        rc = kb == NULL ? -1 : emit_key(&k, &B, h->rs, h->re, h->form, kb, kn);
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

/* html_views(data, unescape) -> [(text, segments)] * 3: the views themselves (tests compare them
 * with html.py's; segments a flat list of view start, raw start, raw length). */
static PyObject *py_html_views(PyObject *self, PyObject *args)
{
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
    {"html_views", py_html_views, METH_VARARGS,
     "html_views(data, unescape) -> [(text, segments)] * 3: the flow, attribute and JSON views (UTF-8) with their\n"
     "segments (view start, raw start, raw length 0 when copied verbatim), as html.py builds them."},
    {"newlines", py_newlines, METH_VARARGS, "newlines(data, start=0, stop=-1): how many newline bytes data[start:stop] holds."},
    {"invalid_bytes", py_invalid_bytes, METH_VARARGS,
     "invalid_bytes(data, start=0, stop=len) -> (count, next): invalid UTF-8 bytes in the characters starting in [start, stop)."},
    {"bucket_of", py_bucket_of, METH_VARARGS, "bucket_of(doi, buckets): a stable hash bucket."},
    {"buckets_of", py_buckets_of, METH_VARARGS,
     "buckets_of(offsets, data, start, n, buckets): buckets of an Arrow string array's rows."},
    {"group_mentions", py_group_mentions, METH_VARARGS,
     "group_mentions(src, rec, doi_offsets, doi_data, doi_start, counts, places, forms, n): the merge's groups."},
    {"tables", py_tables, METH_NOARGS, "tables() -> dict: the rule tables compiled in, for the check against the Python rules."},
    {NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cscan", "The plain-text, PDF-text and HTML matcher on UTF-8 bytes.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__cscan(void)
{
    for (int a = 0; VIEWS[a]; a++)
        VIEW_LEN[a] = (Py_ssize_t)strlen(VIEWS[a]);
    for (int a = 0; RXIV[a]; a++)
        RXIV_LEN[a] = (Py_ssize_t)strlen(RXIV[a]);
    CUT_ASCII['?'] = K_QUERY;
    CUT_ASCII['#'] = CUT_ASCII['&'] = K_HASH_AMP;
    CUT_ASCII[','] = K_SPLIT;
    CUT_ASCII[';'] = K_SPLIT | K_SEMI;
    CUT_ASCII['<'] = K_LT;
    CUT_ASCII['('] = K_PAREN;
    CUT_ASCII[')'] = CUT_ASCII[']'] = CUT_ASCII['}'] = CUT_ASCII['>'] = K_CLOSE;
    for (int a = 0; SEGMENTS[a]; a++)
        SEGMENT_LEN[a] = (Py_ssize_t)strlen(SEGMENTS[a]);
    for (int a = 0; MEDIA[a]; a++)
        MEDIA_LEN[a] = (Py_ssize_t)strlen(MEDIA[a]);
    if (PyType_Ready(&MentionsType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&MentionsType);
    if (PyModule_AddObject(m, "Mentions", (PyObject *)&MentionsType) < 0) {
        Py_DECREF(&MentionsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
