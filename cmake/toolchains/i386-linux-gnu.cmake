# i386 (32-bit size_t and long) with the host gcc and -m32 (gcc-12-multilib). The programs run
# natively where the kernel runs 32-bit programs, else under qemu-i386 (scripts/test_cross.sh
# finds which). Without the gcc-multilib metapackage /usr/include/asm is missing; the
# host's x86 asm headers are the same for i386, so they are searched last.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER gcc)
execute_process(COMMAND gcc -print-multiarch OUTPUT_VARIABLE _onescope_multiarch
  OUTPUT_STRIP_TRAILING_WHITESPACE)
set(CMAKE_C_FLAGS_INIT "-m32 -idirafter /usr/include/${_onescope_multiarch}")
set(CMAKE_EXE_LINKER_FLAGS_INIT -m32)
