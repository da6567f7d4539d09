/* One function per CLI command: argc/argv start after the command name. */
#ifndef ONESCOPE_COMMANDS_H
#define ONESCOPE_COMMANDS_H

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

#endif
