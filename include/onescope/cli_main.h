/* The onescope command line as one call, for an engine that builds its own CLI binary with its
 * modules linked in (no plug-in, no dlopen). Not part of libonescope: it lives in
 * libonescope_cli.a (CMake: onescope::cli), which links libonescope statically and, for plot,
 * cairo. Every symbol of that archive but onescope_cli_main is local, so the CLI's own names
 * never meet the engine's. docs/module.md, "Your own CLI binary". */
#ifndef ONESCOPE_CLI_MAIN_H
#define ONESCOPE_CLI_MAIN_H

#include <stddef.h>

#include "onescope/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `onescope ARGS...` as the stock binary would (argv[0] is the program's name), with the
 * count modules of the array known besides the test module, as if each had been loaded with
 * --module. A table that fails onescope_module_check, or an id given twice, is refused with
 * one line on stderr (exit 1). Returns the exit code (docs/cli.md). Call it once per process:
 * the modules and the global options stay for the process's life. */
int onescope_cli_main(int argc, char **argv, const onescope_module *const *modules, size_t count);

#ifdef __cplusplus
}
#endif

#endif
