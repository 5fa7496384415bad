/* Seatbelt profile generation: later work. */
