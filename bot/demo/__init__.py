"""``acwc demo``: a whole championship on the sandbox Lichess, as a discrete-event simulation.

The pieces, from the inside out:

* :mod:`bot.demo.roster`: the simulated players (names, strengths, who is late, who is absent,
  who withdraws) and the rated game histories the registration check reads from the sandbox.
* :mod:`bot.demo.scripts`: pure functions that say what a player or a TD does next in one match,
  from the match's stored state and the seed alone (no memory of earlier steps).
* :mod:`bot.demo.actors`: the simulated TDs, players and their games. Each actor reads the
  database and the sandbox, acts through the service's own doors (the services the
  composition root builds, as the web pages and the CLI do; games on the sandbox) and says
  when it next wants to act.
* :mod:`bot.demo.driver`: the loop. It owns the fake clock; each step it lets the service settle
  (checked facts: no due outbox row, no due deadline, every sandbox game stored; in this process
  known from the service's memory, across processes read from the database), runs the actors
  due now in a fixed order, and moves the clock to the next event. The service sits behind
  :class:`bot.demo.driver.ServicePort`, so the same driver can run it in this process (the demo)
  or in another one (the crash test: :mod:`bot.demo.remote`).
* :mod:`bot.demo.report`: progress bars, notable events, standings and the run's figures.
"""
