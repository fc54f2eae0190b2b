/* UTF-8 as Python reads it, shared by the matcher (match/_cscan.c) and the mention table
 * (pipeline/_ctable.c): strict decoding with each invalid byte read as one U+FFFD (as the
 * pipeline's surrogateescape + clean give), and encoding. Header-only, static inline. */
#ifndef DOI_UTF8_H
#define DOI_UTF8_H
#include <Python.h>
#include <stdint.h>

typedef uint32_t cp_t;

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

/* The length of the sequence a lead byte starts (0: not a lead byte). */
static inline int utf8_len(unsigned lead)
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

/* Code points as UTF-8 into out (room for 4 bytes each); returns the bytes written. */
static inline Py_ssize_t utf8_encode(const cp_t *s, Py_ssize_t n, char *out)
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

#endif
