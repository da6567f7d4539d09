/* A libcairo.so.2 with none of cairo's functions (tests/cli/cli_plot_cairo.sh): plot, which
 * loads cairo at run time, must refuse PNG with one line when it finds this one first. */
int onescope_fake_cairo(void);
int onescope_fake_cairo(void) {
    return 0;
}
