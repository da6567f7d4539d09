/* onescope recover PARTIAL [OUT]: turns what a killed recording left into a valid file of
 * every complete frame (pose caches) or step (replays). One branch per format that has a
 * streaming writer. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

const cli_spec cli_spec_recover = {
    .name = "recover",
    .operands = "PARTIAL [OUT]",
    .about = "Turns a partial recording (PATH.partial, left by a writer whose process died)\n"
             "into a valid file holding every complete frame or step; a torn last one is dropped.\n"
             "OUT defaults to PARTIAL without its \".partial\". PARTIAL is never changed; OUT\n"
             "is written atomically. Prints how many frames or steps it kept.\n",
    .exit_codes = "0 recovered; 1 not a partial recording, nothing complete, an I/O error, "
                  "or OUT exists under -n; 2 usage",
    .writes = true,
};

/* Which format the partial claims to be, from its first bytes (the library's detection).
 * Opened without blocking, and only a regular file is read: a FIFO would hold open(2) or
 * read(2) forever; the library's recovery then refuses what is not a regular file. */
static onescope_format partial_format(const char *path) {
    unsigned char magic[6]; /* six bytes tell a module recording (OSTM v2) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return ONESCOPE_FORMAT_UNKNOWN;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, magic, sizeof magic) : -1;
    close(fd);
    return n < 0 ? ONESCOPE_FORMAT_UNKNOWN : onescope_format_detect(magic, (size_t)n);
}

/* The default OUT: PARTIAL without its ".partial" (the library refuses any other name without
 * an OUT). false: PARTIAL does not end so, or the name does not fit. */
static bool default_out(const char *partial, char *out, size_t size) {
    size_t n = strlen(partial), suffix = strlen(".partial");
    if (n <= suffix || strcmp(partial + n - suffix, ".partial") != 0 || n - suffix >= size)
        return false;
    memcpy(out, partial, n - suffix);
    out[n - suffix] = '\0';
    return true;
}

/* "PARTIAL: kept N complete frames in OUT". */
static void say_kept(const char *partial, const char *out, uint64_t kept, const char *unit) {
    if (cli.quiet) return;
    char derived[4096];
    if (out == NULL && !default_out(partial, derived, sizeof derived))
        snprintf(derived, sizeof derived, "%s", partial);
    /* A replay killed before its first step still has a start world: said, not hidden. */
    printf("%s: kept %" PRIu64 " complete %s%s in %s%s\n", cli_shown(partial), kept, unit,
           kept == 1 ? "" : "s", cli_shown(out != NULL ? out : derived),
           kept == 0 ? " (no step was recorded: a replay of the start world only)" : "");
}

static int recover_pose_cache(const char *partial, const char *out) {
    onescope_error err;
    uint64_t kept;
    if (onescope_pose_cache_recover(partial, out, NULL, &kept, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    say_kept(partial, out, kept, "frame");
    return CLI_OK;
}

static int recover_replay(const char *partial, const char *out) {
    onescope_error err;
    uint64_t kept = 0;
    if (onescope_replay_recover(partial, out, NULL, &kept, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    say_kept(partial, out, kept, "step");
    return CLI_OK;
}

/* A module recording's torn last record is dropped and said, with its size. */
static int recover_recording(const char *partial, const char *out) {
    onescope_error err;
    uint64_t kept = 0, dropped = 0;
    if (onescope_recording_recover(partial, out, NULL, &kept, &dropped, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    say_kept(partial, out, kept, "step");
    if (dropped != 0 && !cli.quiet)
        printf("%s: dropped a torn last record of %" PRIu64 " byte%s\n", cli_shown(partial),
               dropped, dropped == 1 ? "" : "s");
    return CLI_OK;
}

int cmd_recover(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_recover, argc, argv, 1, 2, &a);
    if (status != CLI_PARSE_RUN) return status;
    const char *args[2] = {a.operands[0], a.operand_count == 2 ? a.operands[1] : NULL};
    if (args[1] != NULL && !cli_check_output("recover", args[0], args[1])) return CLI_FAIL;
    if (args[1] == NULL && cli.no_clobber) {
        char out[4096];
        if (default_out(args[0], out, sizeof out) && !cli_check_output("recover", NULL, out))
            return CLI_FAIL;
    }
    switch (partial_format(args[0])) {
        case ONESCOPE_FORMAT_OSTM: return recover_replay(args[0], args[1]);
        case ONESCOPE_FORMAT_RECORDING: return recover_recording(args[0], args[1]);
        /* Anything else goes to the pose-cache recovery, whose error names the file and what
         * its first bytes should be. */
        case ONESCOPE_FORMAT_OSPC:
        default: return recover_pose_cache(args[0], args[1]);
    }
}
