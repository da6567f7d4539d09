/* The engine's own onescope binary: every stock command, with the springs module linked in, so
 * `springs_cli verify run.ostm` needs no --module and loads nothing. */
#include "onescope/cli_main.h"

const onescope_module *springs_module(void);

int main(int argc, char **argv) {
    const onescope_module *modules[] = {springs_module()};
    return onescope_cli_main(argc, argv, modules, 1);
}
