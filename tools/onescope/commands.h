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
int cmd_box3d_record(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_module(int argc, char **argv);
int cmd_ghost(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_gen_testdata(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* The option tables of the commands on the one parser (args.h): each command's --help, and
 * (onescope --print-options, tools/onescope/gen_docs.py) onescope.1, onescope.bash and the
 * option lists of docs/cli.md. */
extern const cli_spec cli_spec_validate, cli_spec_dump, cli_spec_dump_poses, cli_spec_rewrite,
    cli_spec_verify, cli_spec_replay, cli_spec_convert, cli_spec_box3d_dump, cli_spec_box3d_record,
    cli_spec_live_serve, cli_spec_live_attach, cli_spec_ghost, cli_spec_diff, cli_spec_recover,
    cli_spec_plot, cli_spec_gen_testdata, cli_spec_module_check, cli_spec_view;

#endif
