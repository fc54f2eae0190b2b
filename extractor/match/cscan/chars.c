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

/* Where the whitespace (\s, as Python's str reads it) at the start of b[a:z) ends: the first
 * byte from a on that does not start a whitespace character, or z. */
static Py_ssize_t skip_space(const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    cp_t c;
    while (a < z) {
        int k = dec(b, z, a, &c);
        if (!is_space(c))
            break;
        a += k;
    }
    return a;
}

/* Where the whitespace that ends at z starts, no earlier than a. */
static Py_ssize_t skip_space_back(const unsigned char *b, Py_ssize_t a, Py_ssize_t z)
{
    cp_t c;
    while (z > a) {
        int k = dec_back(b, z, &c);
        if (z - k < a || !is_space(c))
            break;
        z -= k;
    }
    return z;
}

/* [^\s"\x00-\x1f\x7f-\x9f]: the characters a DOI's run is made of. */
static inline int run_end(cp_t c) { return c < 0x20 || c == '"' || (c >= 0x7F && c <= 0x9F) || is_space(c); }

/* ASCII classes for the loops that read a byte at a time: C_RUN_END ends a run (run_end), C_STOP
 * a token (token_stop), C_URL_MARK is '.' or '/' (the left cache's www. and ://). */
enum { C_RUN_END = 1, C_STOP = 2, C_URL_MARK = 4 };
static const unsigned char ascii_class[128] = {
    /* each byte once (-Wextra): the controls end a run, and the white space among them a token too */
    ['\0' ... 0x08] = C_RUN_END, ['\t' ... '\r'] = C_RUN_END | C_STOP, [0x0E ... 0x1B] = C_RUN_END,
    [0x1C ... 0x1F] = C_RUN_END | C_STOP, [0x7F] = C_RUN_END,
    [' '] = C_RUN_END | C_STOP, ['"'] = C_RUN_END | C_STOP,
    ['\''] = C_STOP, ['('] = C_STOP, ['['] = C_STOP, ['{'] = C_STOP, ['<'] = C_STOP, ['>'] = C_STOP,
    [','] = C_STOP, [';'] = C_STOP, ['.'] = C_URL_MARK, ['/'] = C_URL_MARK,
};

/* The token before an anchor ends at whitespace or one of "'([{<>,; (find._TOKEN_REV). */
static inline int token_stop(cp_t c)
{
    switch (c) {
    case '"': case '\'': case '(': case '[': case '{': case '<': case '>': case ',': case ';':
        return 1;
    }
    return is_space(c);
}

/* Case-insensitive match of one character against a lower-case ASCII pattern character: ASCII
 * letters only, as the Python rules' (?ia) (spec Terms: `DOİ` with U+0130 is no label). */
static inline int ci(cp_t c, unsigned char l)
{
    return c == l || (l >= 'a' && l <= 'z' && c == (cp_t)(l - 32));
}

/* (?ia)[a-z]: the ASCII letters. */
static inline int az_ci(cp_t c)
{
    return c < 128 && (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}
static inline int is_digit(cp_t c) { return c >= '0' && c <= '9'; }
static inline int ascii_alpha(cp_t c) { return c < 128 && (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static inline int hexd(cp_t c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f' && c < 128); }
static inline int hexv(cp_t c) { return c <= '9' ? (int)(c - '0') : (int)((c | 0x20) - 'a' + 10); }

/* s[i:] starts with the lower-case ASCII literal `lit`, case-insensitively, within n. */
static inline int lit_at(const cp_t *s, Py_ssize_t n, Py_ssize_t i, const char *lit)
{
    for (; *lit; lit++, i++)
        if (i >= n || !ci(s[i], (unsigned char)*lit))
            return 0;
    return 1;
}
