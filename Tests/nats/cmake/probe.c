/* Links libripple-nats through CMake and calls it without a server: a
   refused argument is reported (see ripple_nats.h, Errors). */
#include <stdio.h>
#include <string.h>

#include <ripple_nats.h>

int main(void) {
    if (rpl_nats_connect(NULL, NULL) != NULL || rpl_last_error() != RPL_ERR_NULL ||
        strcmp(rpl_last_error_message(), "rpl_nats_connect: urls is NULL") != 0) {
        fprintf(stderr, "unexpected: %s\n", rpl_last_error_message());
        return 1;
    }
    printf("nats_cmake_probe: %s\n", rpl_last_error_message());
    return 0;
}
