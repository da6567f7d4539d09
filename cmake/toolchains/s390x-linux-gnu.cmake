# s390x (64-bit big-endian) Linux with Debian's cross compiler (gcc-s390x-linux-gnu,
# libc6-dev-s390x-cross). Programs link statically and run under qemu-user (qemu-s390x), which
# CMake knows as the emulator (CMAKE_CROSSCOMPILING_EMULATOR: ctest and add_test use it).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
find_program(ONESCOPE_QEMU_S390X qemu-s390x)
if(ONESCOPE_QEMU_S390X)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ONESCOPE_QEMU_S390X})
endif()
# Libraries and headers come from the cross root only; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
