"""What keeps the service moving: the clock, wake-up calls, the deadline runner, the outbox
dispatcher and the loop keeper. Nothing here knows the tournament's rules."""
