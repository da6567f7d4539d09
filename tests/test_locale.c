/* Numbers under a locale whose decimal point is not '.': a process that set ps_AF.UTF-8 (the
 * point is U+066B, two bytes in UTF-8) gets the same .anm bytes from the OTS writer as under
 * the C locale, and the library reads them back (issue 21.8; 0.3.0 wrote "3٫744", which is not
 * JSON); onescope_number_format writes '.' there too. And the library's error lines that hold
 * a number are the C locale's under ps_AF and under de_DE's comma (issue 38 item 10: scene
 * errors said "-0,5" and "%.9g" digits). The locale is compiled with localedef
 * into a scratch folder (LOCPATH); without localedef or the locale's source the test reports
 * SKIPPED (exit 77). */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static const char clip[] =
    "{\"format\": \"octo_anm\", \"version\": 4, \"source\": \"maya\", \"frame_range\": [1, 3],\n"
    " \"fps\": 23.976,\n"
    " \"coordinate_system\": {\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\",\n"
    "   \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": "
    "\"quat_wxyz\"},\n"
    " \"pegs\": [{\"name\": \"root-P\", \"parent\": null, \"rest_pivot\": [0.25, 0, 0],\n"
    "   \"rest_rotation\": [1, 0, 0, 0], \"keyframes\": [\n"
    "   {\"frame\": 1, \"pos\": [3.744, -0.001, 1e-7], \"rot_quat\": [1, 0, 0, 0], \"scl\": [1, 1, "
    "1], \"interp\": \"LINEAR\"},\n"
    "   {\"frame\": 3, \"pos\": [0.1, 2.5, 1234.5678], \"rot_quat\": [1, 0, 0, 0], \"scl\": [1.5, "
    "1, 1], \"interp\": \"LINEAR\"}]}],\n \"cameras\": []}\n";

static int write_clip(onescope_buffer *out) {
    onescope_ots_clip *c;
    onescope_error err;
    if (onescope_ots_clip_parse(clip, strlen(clip), "clip.anm", NULL, &c, &err) != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        fprintf(stderr, "parse: %s\n", line);
        return -1;
    }
    onescope_code rc = onescope_ots_clip_write(c, NULL, out, &err);
    onescope_ots_clip_free(c);
    return rc == ONESCOPE_OK ? 0 : -1;
}

/* The error lines the library writes with a number in them (issue 38 item 10): a scene's
 * density (a float: its shortest text, never %.9g's "-0.100000001"), a module table's metres
 * per unit, an animation's frame rate. Each line into lines[i]. */
#define MESSAGES 3
static int message_lines(char lines[MESSAGES][512]) {
    onescope_error err;
    static const char scene[] = "{\"dt\": 0.02, \"bodies\": [{\"kind\": \"box\", \"size\": "
                                "[0.5, 0.5, 0.5], \"density\": -0.1, \"position\": [0, 1, 0]}]}";
    onescope_soa_scene *sc = NULL;
    if (onescope_soa_scene_parse(scene, strlen(scene), "scene.json", NULL, &sc, &err) ==
        ONESCOPE_OK) {
        onescope_soa_scene_free(sc);
        return -1;
    }
    onescope_error_format(&err, lines[0], 512);
    onescope_module m = *onescope_module_test();
    m.metres_per_unit = -0.5;
    if (onescope_module_check(&m, "plug.so", &err) == ONESCOPE_OK) return -1;
    onescope_error_format(&err, lines[1], 512);
    char bad[sizeof clip];
    memcpy(bad, clip, sizeof clip);
    char *fps = strstr(bad, "23.976");
    memcpy(fps, "-0.125", 6);
    onescope_ots_clip *c;
    if (onescope_ots_clip_parse(bad, strlen(bad), "clip.anm", NULL, &c, &err) == ONESCOPE_OK) {
        onescope_ots_clip_free(c);
        return -1;
    }
    onescope_error_format(&err, lines[2], 512);
    return 0;
}

/* Under `locale` (made in dir), every message line is the C locale's, byte for byte, and holds
 * the number as the one printer writes it. 0 passed, 1 failed, 77 the locale is missing. */
static int messages_under(const char *dir, const char *locale) {
    static const char *const want[MESSAGES] = {"found -0.1", "found -0.5", "found -0.125"};
    char c_lines[MESSAGES][512], lines[MESSAGES][512];
    setlocale(LC_ALL, "C");
    if (message_lines(c_lines) != 0) {
        fprintf(stderr, "FAIL: a bad input was accepted\n");
        return 1;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "localedef -i %.5s -f UTF-8 %s/%s >/dev/null 2>&1", locale, dir,
             locale);
    if (system(cmd) != 0 || setlocale(LC_ALL, locale) == NULL) {
        printf("SKIPPED (part): no %s locale here\n", locale);
        setlocale(LC_ALL, "C");
        return 77;
    }
    int rc = message_lines(lines) == 0 ? 0 : 1;
    setlocale(LC_ALL, "C");
    for (int i = 0; rc == 0 && i < MESSAGES; i++) {
        if (strcmp(lines[i], c_lines[i]) != 0 || strstr(lines[i], want[i]) == NULL) {
            fprintf(stderr, "FAIL: under %s: %s\n  the C locale's: %s\n  wanted '%s'\n", locale,
                    lines[i], c_lines[i], want[i]);
            rc = 1;
        }
    }
    if (rc == 0)
        printf("test_locale: %d error lines under %s are the C locale's\n", MESSAGES, locale);
    return rc;
}

int main(void) {
    char dir[] = "/tmp/test_locale-XXXXXX";
    if (mkdtemp(dir) == NULL) return 1;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "localedef -i ps_AF -f UTF-8 %s/ps_AF.UTF-8 >/dev/null 2>&1", dir);
    int made = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    onescope_buffer c_bytes, ps_bytes;
    if (write_clip(&c_bytes) != 0) return 1;
    setenv("LOCPATH", dir, 1);
    if (made != 0 || setlocale(LC_ALL, "ps_AF.UTF-8") == NULL) {
        printf("SKIPPED: no ps_AF.UTF-8 locale (localedef, or the locales package, missing)\n");
        if (system(cmd) != 0) return 1;
        return 77;
    }
    const char *point = localeconv()->decimal_point;
    int rc = 0;
    if (strcmp(point, "\xd9\xab") != 0) {
        fprintf(stderr, "FAIL: the ps_AF decimal point is not U+066B here\n");
        rc = 1;
    }
    char probe[32];
    snprintf(probe, sizeof probe, "%.1f", 1.5); /* the locale is really in force */
    if (strstr(probe, "\xd9\xab") == NULL) {
        fprintf(stderr, "FAIL: printf under ps_AF gave %s\n", probe);
        rc = 1;
    }
    char num[ONESCOPE_NUMBER_MAX_LENGTH + 1]; /* the public printer: '.' under ps_AF too */
    onescope_number_format(3.744, num, sizeof num);
    if (strcmp(num, "3.744") != 0) {
        fprintf(stderr, "FAIL: onescope_number_format under ps_AF gave %s\n", num);
        rc = 1;
    }
    onescope_number_format_float(-1.5e-7f, num, sizeof num);
    if (strcmp(num, "-1.5e-07") != 0) {
        fprintf(stderr, "FAIL: onescope_number_format_float under ps_AF gave %s\n", num);
        rc = 1;
    }
    if (rc == 0 && write_clip(&ps_bytes) != 0) rc = 1;
    if (rc == 0) {
        if (ps_bytes.size != c_bytes.size || memcmp(ps_bytes.data, c_bytes.data, c_bytes.size)) {
            fprintf(stderr, "FAIL: the .anm under ps_AF differs from the C locale's:\n%.*s\n",
                    (int)ps_bytes.size, (const char *)ps_bytes.data);
            rc = 1;
        }
        onescope_ots_clip *back;
        onescope_error err;
        if (onescope_ots_clip_parse(ps_bytes.data, ps_bytes.size, "ps.anm", NULL, &back, &err) !=
            ONESCOPE_OK) {
            fprintf(stderr, "FAIL: the library refuses what it wrote under ps_AF\n");
            rc = 1;
        } else {
            onescope_ots_clip_free(back);
        }
        onescope_buffer_free(&ps_bytes);
    }
    onescope_buffer_free(&c_bytes);
    setlocale(LC_ALL, "C");
    /* the library's error lines under the Arabic point and under a comma (de_DE) */
    if (messages_under(dir, "ps_AF.UTF-8") == 1) rc = 1;
    if (messages_under(dir, "de_DE.UTF-8") == 1) rc = 1;
    if (system(cmd) != 0) rc = 1;
    if (rc == 0)
        printf("test_locale: the .anm under ps_AF.UTF-8 is the C locale's, byte for byte, and "
               "onescope_number_format writes '.'\n");
    return rc;
}
