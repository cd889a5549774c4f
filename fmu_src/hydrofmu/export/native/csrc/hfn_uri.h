/* hfn_uri.h: an FMU's resource location (fmi2Instantiate's fmuResourceLocation, a file URI)
 * turned into a path. Header only (static functions), so that the native runtime
 * (hfn_instance.c) and the Python FMU's shim (export/uri_shim.c) parse it the same way.
 *
 * The forms importers pass (FMI 2.0 section 2.1.5 asks for a URI of RFC 3986; tools differ):
 *   file:///abs/path            fmpy (pathlib's as_uri), FMI Library, most tools
 *   file:/abs/path              Dymola, Simulink, Java's File.toURI
 *   file://localhost/abs/path   RFC 8089 with the host named
 *   file:///C:/dir, file:/C:/dir, file:///C|/dir     Windows drive letters (also %3A)
 *   file://server/share/dir     a Windows UNC share (refused elsewhere: a remote host)
 *   /abs/path                   no scheme: a plain path, taken as it is (not decoded)
 * Every %XX after the scheme and host is decoded (spaces as %20, UTF-8 bytes as %C3%BC);
 * %00 and a '%' not followed by two hex digits stay as they are. The scheme is matched
 * without regard to case. On Windows a leading "/" before a drive letter is dropped and
 * "C|" becomes "C:".
 */
#ifndef HFN_URI_H
#define HFN_URI_H

#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define HFN_URI_WINDOWS 1
#else
#define HFN_URI_WINDOWS 0
#endif

static int hfn_uri_hex(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* s starts with prefix, ASCII letters compared without case. */
static int hfn_uri_starts(const char *s, const char *prefix) {
    for (; *prefix; s++, prefix++) {
        char a = *s, b = *prefix;
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

static int hfn_uri_letter(char ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

/* The path of a resource location (malloc'ed; the caller frees it), or NULL: NULL or empty
 * location, a host other than localhost where paths cannot name one (windows = 0), or no
 * memory. windows: parse as on Windows (HFN_URI_WINDOWS on the platform compiled for). */
static char *hfn_uri_to_path(const char *uri, int windows) {
    const char *p;
    char *out, *o;
    size_t n;
    if (!uri || !*uri) return NULL;
    if (!hfn_uri_starts(uri, "file:")) { /* a plain path */
        n = strlen(uri) + 1;
        out = (char *)malloc(n);
        if (out) memcpy(out, uri, n);
        return out;
    }
    p = uri + 5;
    if (p[0] == '/' && p[1] == '/') { /* an authority: empty, localhost or a host */
        const char *host = p + 2;
        if (host[0] == '/') {
            p = host;
        } else if (hfn_uri_starts(host, "localhost") && (host[9] == '/' || host[9] == '\0')) {
            p = host + 9;
        } else if (!windows) {
            return NULL; /* file://server/...: no path names a remote host here */
        } /* else: //server/share, a UNC path, kept with its two slashes */
    }
    out = o = (char *)malloc(strlen(p) + 1);
    if (!out) return NULL;
    while (*p) {
        int hi = p[0] == '%' ? hfn_uri_hex(p[1]) : -1, lo = hi >= 0 ? hfn_uri_hex(p[2]) : -1;
        if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
            *o++ = (char)(hi * 16 + lo);
            p += 3;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    if (windows) {
        char *d = out;
        if (d[0] == '/' && hfn_uri_letter(d[1]) && (d[2] == ':' || d[2] == '|') &&
            (d[3] == '/' || d[3] == '\\' || d[3] == '\0'))
            memmove(d, d + 1, strlen(d)); /* "/C:/x" -> "C:/x" (with its terminator) */
        if (hfn_uri_letter(d[0]) && d[1] == '|') d[1] = ':';
    }
    if (!*out) { free(out); return NULL; }
    return out;
}

#endif
