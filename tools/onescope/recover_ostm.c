/* The replay half of `onescope recover PARTIAL [OUT]` (cmd_recover.c decides the format and
 * calls this for an OSTM partial): turns a partial recording into a replay of every complete
 * step, through onescope_replay_recover. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int recover_replay(const char *partial, const char *out);

/* out may be NULL: PARTIAL without its ".partial". Prints what it kept (unless -q) or one error
 * line; CLI_OK or CLI_FAIL. The partial is left as it was either way. */
int recover_replay(const char *partial, const char *out) {
    if (out != NULL && cli_refuse_same_file("recover", partial, out)) return CLI_FAIL;
    onescope_error err;
    uint32_t kept = 0;
    if (onescope_replay_recover(partial, out, NULL, &kept, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    if (!cli.quiet) {
        size_t n = strlen(partial);
        int stem = out == NULL ? (int)(n - strlen(".partial")) : (int)strlen(out);
        printf("%s: kept %" PRIu32 " complete step%s in %.*s (the partial is left in place)\n",
               partial, kept, kept == 1 ? "" : "s", stem, out == NULL ? partial : out);
    }
    return CLI_OK;
}
