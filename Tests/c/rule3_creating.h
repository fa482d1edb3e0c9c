/* Rule 3a cases for the 0.2 creating operators; included by test_rule3.c, which
   provides the endless producer and the TAKE1-style helpers. */
#define RULE3_CREATING_CASES
