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

/* left.URLISH's ^host.tld/ and ^/segment/ on a token of n characters of which t holds the first
 * m (m reaching past its first '/' after its first character, or m == n). */
static int urlish_from(const cp_t *t, Py_ssize_t m, Py_ssize_t n)
{
    /* ^host.tld/ */
    {
        Py_ssize_t j = 0, labels = 0, last_start = 0;
        int ok = 1;
        while (j < m && t[j] != '/') {
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
        if (ok && j < m && labels >= 1 && j - last_start >= 2) {
            int letters = 1;
            for (Py_ssize_t k = last_start; k < j; k++)
                if (!az_ci(t[k]))
                    letters = 0;
            if (letters)
                return 1;
        }
    }
    /* ^/segment/ */
    if (n >= 3 && m >= 1 && t[0] == '/') {
        Py_ssize_t j = 1;
        while (j < m && (az_ci(t[j]) || is_digit(t[j]) || t[j] == '.' || t[j] == '_' || t[j] == '~' || t[j] == '%' || t[j] == '-'))
            j++;
        if (j >= 2 && j < m && t[j] == '/')
            return 1;
    }
    return 0;
}

/* left.URLISH on the token tok[0:n] (in text order). */
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
    return urlish_from(t, n, n);
}

/* What a scan has learnt of its text up to byte `to`, so that the left context of an anchor in
 * a long token (up to LEFT_WINDOW characters, every anchor of `10.1/)10.1/)…` in one) is not read
 * back in full for each: where the last token stop ends, where the last non-ASCII byte ends, and
 * the greatest position that makes a token URL-like wherever it lies in it (left.URLISH's
 * `scheme://`, whose scheme's first letter it is, and `www.`) of those ending by `to`. */
typedef struct LeftCache {
    Py_ssize_t to, stop_end, ascii_from, evidence;
} LeftCache;

typedef struct {
    const unsigned char *b;
    Py_ssize_t n;
    LeftCache *lc; /* NULL: every token read back in full */
} Buf;

/* The display form of the DOI whose anchor is at byte p and the byte where it starts, or -1. */
static int broken_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t tn);
static int spaced_resolver(const Buf *B, Py_ssize_t p, Py_ssize_t *startp);

/* The cache brought forward to byte p (p at a character boundary, no less than lc->to). */
static void left_cache_to(const Buf *B, LeftCache *lc, Py_ssize_t p)
{
    const unsigned char *b = B->b;
    Py_ssize_t i = lc->to;
    while (i < p) {
        unsigned char c = b[i];
        if (c < 0x80 && !(ascii_class[c] & (C_STOP | C_URL_MARK))) {
            i++;
            continue;
        }
        if (c >= 0x80) {
            cp_t cp;
            int k = dec(b, B->n, i, &cp);
            if (token_stop(cp))
                lc->stop_end = i + k;
            i += k;
            lc->ascii_from = i;
            continue;
        }
        if (token_stop(c))
            lc->stop_end = i + 1;
        else if (c == '.' && i >= 3 && ci(b[i - 3], 'w') && ci(b[i - 2], 'w') && ci(b[i - 1], 'w'))
            lc->evidence = i - 3 > lc->evidence ? i - 3 : lc->evidence; /* www. */
        else if (c == '/' && i >= 2 && b[i - 1] == '/' && b[i - 2] == ':') {
            /* scheme://: the letter before it, past digits + . - (urlish's loop) */
            Py_ssize_t k = i - 3;
            while (k >= 0 && (is_digit(b[k]) || b[k] == '+' || b[k] == '.' || b[k] == '-'))
                k--;
            if (k >= 0 && az_ci(b[k]) && k > lc->evidence)
                lc->evidence = k;
        }
        i++;
    }
    lc->to = i;
}

/* urlish's ^host.tld/ and ^/segment/ on the token bytes [ts, p), decoded: a host's letters are
 * ASCII (spec Terms), and a non-ASCII character counts as one character of the token. */
static int urlish_start(const unsigned char *t, Py_ssize_t n)
{
    cp_t u[LEFT_WINDOW + 1];
    Py_ssize_t m = 0, i = 0;
    /* enough of the token for both patterns: up to its first '/' after the first character */
    while (i < n && m < LEFT_WINDOW && (m == 0 || u[m - 1] != '/' || m == 1)) {
        cp_t c = t[i];
        i += c < 0x80 ? 1 : dec(t, n, i, &c);
        u[m++] = c;
    }
    Py_ssize_t chars = m; /* the token's length in characters, as far as urlish_from asks (3) */
    while (i < n && chars < 3) {
        cp_t c;
        i += t[i] < 0x80 ? 1 : dec(t, n, i, &c);
        chars++;
    }
    return urlish_from(u, m, chars < 3 ? chars : n);
}

static int left_context(const Buf *B, Py_ssize_t p, Py_ssize_t *startp, int pdf)
{
    cp_t r[LEFT_WINDOW + 1];
    Py_ssize_t off[LEFT_WINDOW + 1];
    Py_ssize_t n = 0, i = p, limit = 64;
    int url_known = -1, filled = 0; /* urlish of the token, when the cache told it */
    int bytes_back = 0; /* r[k] is the byte at p - 1 - k, off[k] not set (k < 40) */
    LeftCache *lc = B->lc;
    if (lc != NULL && p >= lc->to && p - lc->to <= 64) {
        /* an anchor just after one in a long token (the cache was brought to it): most likely
         * in the same token, told by the cache with no character read back one at a time */
        left_cache_to(B, lc, p);
        /* 64 ASCII characters back with no token stop, and the token's start known below: the
         * 40 that the labels and resolvers are looked for in are all that is read */
        if (p > 64 && p - lc->stop_end >= 64 && p - 64 >= lc->ascii_from &&
            (p - lc->stop_end <= LEFT_WINDOW || p - LEFT_WINDOW >= lc->ascii_from)) {
            for (; n < 40; n++)
                r[n] = B->b[p - 1 - n];
            n = 64;
            off[63] = i = p - 64;
            filled = bytes_back = 1;
        }
    }
    while ((n < limit || filled) && i > 0) {
        if (filled) {
            filled = 0;
        } else {
            cp_t c;
            int k = dec_back(B->b, i, &c);
            if (token_stop(c))
                break;
            i -= k;
            r[n] = c;
            off[n] = i;
            n++;
        }
        if (n == 64 && limit == 64 && i > 0) {
            if (lc != NULL && p >= lc->to) {
                /* a long token: its start and whether it is URL-like from the cache, when the
                 * characters back to its start are sure to be as many as their bytes */
                left_cache_to(B, lc, p);
                Py_ssize_t ts = -1;
                if (p - lc->stop_end <= LEFT_WINDOW) /* no more characters than bytes: all read */
                    ts = lc->stop_end;
                else if (p - LEFT_WINDOW >= lc->ascii_from) /* ASCII: LEFT_WINDOW bytes are as many characters */
                    ts = p - LEFT_WINDOW;
                if (ts >= 0 && ts <= off[63]) {
                    url_known = lc->evidence >= ts || urlish_start(B->b + ts, p - ts);
                    off[n - 1] = ts; /* the token's start, all that is read of it past here */
                    break;
                }
            }
            limit = LEFT_WINDOW;
        }
    }
    if (n > 0 && !(n == 1 && (r[0] == ':' || r[0] == 0xFF1A || r[0] == '='))) {
        /* left.LEFT_GLUED on the last 40 characters of the token: the leftmost match wins. */
        Py_ssize_t tn = n < 40 ? n : 40, best = 0;
        int bform = -1;
        Py_ssize_t e;
        /* every literal below ends in one of these (after an optional ':' or '=' for "doi") */
        cp_t c0 = r[0];
        if (!(c0 == '/' || c0 == ':' || c0 == '=' || c0 == 0xFF1A || ci(c0, 'f') || ci(c0, 'a') || ci(c0, 'i')))
            tn = 0;
#define CONSIDER(len, f)               \
    do {                               \
        if ((len) > best) {            \
            best = (len);              \
            bform = (f);               \
        }                              \
    } while (0)
        if (rlit(r, tn, 0, "dx.doi.org/"))
            CONSIDER(http_prefix(r, tn, 11), F_DX_RESOLVER);
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
            CONSIDER(9, F_EIDR_URN);
        if (rlit(r, tn, 0, "info:doi/"))
            CONSIDER(9, F_INFO_URI);
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
                *startp = bytes_back ? p - best : off[best - 1];
                return bform;
            }
        }
        int url = url_known;
        if (url < 0) {
            cp_t tok[LEFT_WINDOW];
            for (Py_ssize_t k = 0; k < n; k++)
                tok[k] = r[n - 1 - k];
            url = urlish(tok, n);
        }
        if (bform == F_LABEL) {
            /* left._QUERY_DOI: "?doi=" or "&doi=", a query's parameter, is URL context */
            if (!url && tn >= 5 && r[0] == '=' && (r[4] == '?' || r[4] == '&') && rlit(r, tn, 1, "doi"))
                url = 1;
            *startp = url ? off[n - 1] : bytes_back ? p - best : off[best - 1];
            return url ? F_OTHER_URL : F_LABEL;
        }
        cp_t prev = r[0];
        int pct = n >= 3 && r[2] == '%' && hexd(r[1]) && hexd(r[0]);
        if (url) {
            if (prev == '/' || prev == '=' || pct) {
                *startp = off[n - 1];
                return F_OTHER_URL;
            }
            if (is_alnum(prev) || (prev == '.' && n > 1 && is_digit(r[1])))
                return -1; /* spec §2: glued to a number and dot, /19.10.2019/ */
            *startp = off[n - 1];
            return F_OTHER_URL;
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
    /* A spaced label (left.LEFT_SPACED_LABEL) in the last 24 characters, or bare. The
     * characters are read back as the rule gets to them (FILL): most anchors are bare after the
     * first, every DOI of a list joined by commas among them. */
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
