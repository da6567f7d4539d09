/* Replays inputs through a fuzz harness without libFuzzer, so that ctest runs the seed
 * corpora under any compiler (and under the sanitizers when the build has them).
 *
 *   NAME_replay PATH... [--also EXT DIR]...
 *
 * A PATH that is a directory runs every regular file in it (sorted by name, so runs are
 * repeatable); a PATH that is a file runs that file. "--also EXT DIR" adds the files of
 * DIR whose names end in ".EXT", and is quietly empty when DIR does not exist (testdata/
 * arrives with the format modules). Each input is copied into a block of exactly its size
 * so that reading one byte past it is caught by ASan or valgrind. Exit 0 when every input
 * ran; 1 when nothing ran or a file could not be read; a failing check aborts. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_helpers.h"

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 0;
    }
    size_t cap = 4096, size = 0;
    uint8_t *data = malloc(cap);
    for (;;) {
        if (data == NULL) {
            fprintf(stderr, "%s: out of memory\n", path);
            fclose(f);
            return 0;
        }
        size += fread(data + size, 1, cap - size, f);
        if (size < cap) break;
        uint8_t *p = realloc(data, cap * 2);
        if (p == NULL) free(data);
        data = p;
        cap *= 2;
    }
    int ok = !ferror(f);
    fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(data);
        return 0;
    }
    /* An exact-size copy: no slack after the last byte. */
    uint8_t *exact = malloc(size ? size : 1);
    if (exact == NULL) {
        free(data);
        return 0;
    }
    if (size) memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 1;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *ext) {
    size_t n = strlen(s), m = strlen(ext);
    return n > m + 1 && s[n - m - 1] == '.' && strcmp(s + n - m, ext) == 0;
}

/* Runs the files of dir (those ending in .ext when ext is not NULL); counts them in *runs.
 * Returns 0 on an unreadable directory or file. */
static int run_dir(const char *dir, const char *ext, long *runs) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "%s: cannot open directory: %s\n", dir, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    int ok = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || (ext != NULL && !ends_with(e->d_name, ext))) continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (path == NULL) {
            ok = 0;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(names, cap * sizeof *names);
            if (p == NULL) {
                free(path);
                ok = 0;
                break;
            }
            names = p;
        }
        names[count++] = path;
    }
    closedir(d);
    if (count > 0) qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        if (ok && !run_file(names[i]))
            ok = 0;
        else if (ok)
            (*runs)++;
        free(names[i]);
    }
    free(names);
    return ok;
}

int main(int argc, char **argv) {
    long runs = 0;
    int ok = 1;
    for (int i = 1; i < argc && ok; i++) {
        if (strcmp(argv[i], "--also") == 0) {
            if (i + 2 >= argc) {
                fprintf(stderr, "usage: %s PATH... [--also EXT DIR]...\n", argv[0]);
                return 2;
            }
            const char *ext = argv[i + 1], *dir = argv[i + 2];
            i += 2;
            struct stat st;
            if (stat(dir, &st) != 0 && errno == ENOENT) continue; /* not there yet */
            long before = runs;
            ok = run_dir(dir, ext, &runs);
            printf("%s/*.%s: %ld files\n", dir, ext, runs - before);
            continue;
        }
        if (argv[i][0] == '-') continue; /* libFuzzer flags (-runs=...) mean nothing here */
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            ok = 0;
        } else if (S_ISDIR(st.st_mode)) {
            long before = runs;
            ok = run_dir(argv[i], NULL, &runs);
            printf("%s: %ld files\n", argv[i], runs - before);
        } else {
            ok = run_file(argv[i]);
            runs += ok;
        }
    }
    if (!ok) return 1;
    if (runs == 0) {
        fprintf(stderr, "no inputs ran: an empty corpus proves nothing\n");
        return 1;
    }
    printf("%ld inputs ran without a failure\n", runs);
    return 0;
}
