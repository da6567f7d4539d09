/* The stock onescope binary: the CLI with the built-in test module, and plug-ins through
 * --module PATH. An engine's own binary calls onescope_cli_main with its modules instead. */
#include <stddef.h>

#include "onescope/cli_main.h"

int main(int argc, char **argv) {
    return onescope_cli_main(argc, argv, NULL, 0);
}
