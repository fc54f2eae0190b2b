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

/* rules.DEBRIS's characters: U+FFFD, private-use code points, and emoji (spec §4: tables.h). */
static inline int debris_char(cp_t c)
{
    return c == 0xFFFD || (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000 || emoji_char(c);
}

/* The characters at which some rule of first_cut may end a name (?#&,;<>()[]{}, their full-width
 * closers, rules.DEBRIS's characters), by the rule each wakes: a name holding none of a rule's
 * characters skips that rule's pass. */
enum { K_QUERY = 1, K_HASH_AMP = 2, K_SPLIT = 4, K_LT = 8, K_SEMI = 16, K_PAREN = 32, K_DEBRIS = 64, K_CLOSE = 128, K_PCT = 256 };
static const unsigned short CUT_ASCII[128] = {
    ['?'] = K_QUERY, ['#'] = K_HASH_AMP, ['&'] = K_HASH_AMP, ['%'] = K_PCT, [','] = K_SPLIT, [';'] = K_SPLIT | K_SEMI,
    ['<'] = K_LT, ['('] = K_PAREN, [')'] = K_CLOSE, [']'] = K_CLOSE, ['}'] = K_CLOSE, ['>'] = K_CLOSE};

static inline unsigned cut_class(cp_t c)
{
    if (c < 128)
        return CUT_ASCII[c];
    if (debris_char(c))
        return K_DEBRIS;
    return c == 0xFF09 || c == 0xFF3D || c == 0xFF5D || c == 0xFF1E ? K_CLOSE : 0;
}

/* rules._URL_STOPS' nested query at s[i]: %26(?=[A-Za-z][A-Za-z0-9_-]*%3[Dd]) */
static int nested_query(const cp_t *s, Py_ssize_t n, Py_ssize_t i)
{
    if (!(i + 3 < n && s[i] == '%' && s[i + 1] == '2' && s[i + 2] == '6' && ascii_alpha(s[i + 3])))
        return 0;
    Py_ssize_t j = i + 4;
    while (j < n && (ascii_alpha(s[j]) || is_digit(s[j]) || s[j] == '_' || s[j] == '-'))
        j++;
    return j + 2 < n && s[j] == '%' && s[j + 1] == '3' && (s[j + 2] == 'D' || s[j + 2] == 'd');
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
        for (i = 0; i < n && (m & (K_QUERY | K_HASH_AMP | K_PCT)); i++)
            if (s[i] == '?' || s[i] == '#' || s[i] == '&' || nested_query(s, n, i)) {
                end = i;
                break;
            }
    } else if (form == F_URN || form == F_EIDR_URN) {
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
            } else if (c >= 0xA9 && db == end && debris_char(c)) {
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
        /* the raw allocator: a batch of texts is scanned without the GIL */
        if (end > MAX_LOGICAL + 8 && (stack = PyMem_RawMalloc(sizeof(cp_t) * (size_t)end)) == NULL)
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
            PyMem_RawFree(stack);
        return cut;
    }
    return end;
}

static int is_decimal(cp_t c) { return c < 128 ? is_digit(c) : Py_UNICODE_ISDECIMAL(c); }

/* s[0:n] ends with "." and a media extension: the index of that ".", or -1. */
static Py_ssize_t media_ext(const cp_t *s, Py_ssize_t n)
{
    for (int a = 0; MEDIA[a].s; a++) {
        Py_ssize_t st = n - MEDIA[a].len - 1;
        if (st >= 0 && s[st] == '.' && lit_at(s, n, st + 1, MEDIA[a].s))
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
    for (int a = 0; RXIV[a].s; a++) {
        Py_ssize_t L = RXIV[a].len;
        if (lit_at(s, n, i + 1, RXIV[a].s) && rxiv_rest(s, n, i + 1 + L))
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
    case 1: { /* /(?:views)(?:\.html?)?/?\Z */
        /* a view word holds no '/': for each ending (a '/' or none, then .htm, .html or none)
         * the word is the segment after the last '/' before it, compared by length first */
        static const Word EXT[] = {W(""), W(".htm"), W(".html")};
        Py_ssize_t best = -1;
        if (n < 4)
            return -1;
        for (int slash = 0; slash <= 1; slash++) {
            if (slash && s[n - 1] != '/')
                continue;
            for (int x = 0; x < 3; x++) {
                Py_ssize_t we = n - slash - EXT[x].len; /* the view word's end */
                if (we < 1 || !lit_at(s, n - slash, we, EXT[x].s))
                    continue;
                Py_ssize_t st = we - 1;
                while (st >= 0 && s[st] != '/')
                    st--;
                if (st < 0)
                    continue;
                for (int a = 0; VIEWS[a].s; a++)
                    if (VIEWS[a].len == we - st - 1 && lit_at(s, we, st + 1, VIEWS[a].s)) {
                        if (best < 0 || st < best)
                            best = st;
                        break;
                    }
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
            for (int a = 0; SEGMENTS[a].s; a++) {
                Py_ssize_t e = i + 1 + SEGMENTS[a].len;
                if (lit_at(s, n, i + 1, SEGMENTS[a].s) && (e == n || s[e] == '/'))
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

/* tails.DOI_PATH_MARKER: (?i)/doi/ in the URL before the DOI, or that URL ending in a Springer
 * host (link. or rd.springer.com, after its start, '/', '.' or '@') and a Springer marker. */
static int doi_path_marker(const cp_t *ub, Py_ssize_t ubn)
{
    for (Py_ssize_t j = 0; j + 5 <= ubn; j++)
        if (lit_at(ub, ubn, j, "/doi/"))
            return 1;
    for (int m = 0; SPRINGER_MARKERS[m] != NULL; m++) {
        Py_ssize_t at = ubn - (Py_ssize_t)strlen(SPRINGER_MARKERS[m]) - 2; /* its leading '/' */
        if (at < 0 || ub[at] != '/' || !lit_at(ub, ubn - 1, at + 1, SPRINGER_MARKERS[m]) || ub[ubn - 1] != '/')
            continue;
        static const char *const HOSTS[] = {"link.springer.com", "rd.springer.com"};
        for (int h = 0; h < 2; h++) {
            Py_ssize_t hs = at - (Py_ssize_t)strlen(HOSTS[h]);
            if (hs >= 0 && lit_at(ub, at, hs, HOSTS[h]) &&
                (hs == 0 || ub[hs - 1] == '/' || ub[hs - 1] == '.' || ub[hs - 1] == '@'))
                return 1;
        }
    }
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
