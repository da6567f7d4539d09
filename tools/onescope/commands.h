/* One function per CLI command: argc/argv start after the command name (argv[-1] is the
 * name: cli_parse reads it as getopt's program name). */
#ifndef ONESCOPE_COMMANDS_H
#define ONESCOPE_COMMANDS_H

#include "args.h"

int cmd_validate(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_rewrite(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_box3d_dump(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_ghost(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_gen_testdata(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* The option tables of the commands on the one parser (args.h); dump's and rewrite's live
 * inside their functions. */
extern const cli_spec cli_spec_replay, cli_spec_convert, cli_spec_box3d_dump, cli_spec_ghost,
    cli_spec_diff, cli_spec_gen_testdata, cli_spec_recover, cli_spec_verify;

#endif
