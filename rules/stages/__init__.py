"""The stages of the championship (rules 3): their order and progress, the qualification, the
Candidates pools, the knockout bracket, the armageddon and the seeding that feeds them."""
