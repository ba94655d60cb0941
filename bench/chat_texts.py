"""The events bench/make_chats.py assembles chats from: what a person mentions, in passing,
with the questions about it (the distractors are in chat_fillers.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    topic: str
    slots: dict[str, list[str]]
    opener: list[str]  # the person's lead-in (asks for help; no fact yet)
    opener_reply: list[str]
    says: list[str]  # the evidence turn: the fact, said in passing
    reply: list[str]
    when_q: list[str]
    detail_q: list[str]
    did: str  # "What did I {did} in May 2024?"
    act: str  # "Which did I do first, {act} or ...?"
    past: str  # "between when I {past} and ..."
    update: tuple[str, str] | None = None
    update_q: str = ""


EVENTS = [
    Event("pets", {"breed": ["beagle", "border collie", "dachshund", "labrador"],
                   "pet": ["Pepper", "Biscuit", "Juno", "Miso"]},
          ["Can you help me put together a shopping list for a new puppy?"],
          ["Of course. The basics are a crate, a bed, food and water bowls, a collar with an ID "
           "tag, a leash, chew toys and puppy food. Do you know the breed yet?"],
          ["Yes! We picked her up from the breeder this morning, a {breed}. The kids voted and "
           "she's called {pet}.",
           "We actually brought her home today: a little {breed} girl, and we named her {pet}."],
          ["Congratulations on {pet}! A {breed} puppy will need short, frequent walks and plenty "
           "of chewing outlets. Start crate training in the first days and keep a steady "
           "feeding schedule."],
          ["When did I get my dog?", "When did we bring our puppy home?"],
          ["What did we name the puppy?", "What breed is my dog?"],
          "bring home", "get the puppy", "got the puppy"),
    Event("travel", {"city": ["Lisbon", "Kyoto", "Montreal", "Edinburgh"],
                     "sight": ["the old castle", "a night food market", "the botanical garden"]},
          ["What's a good way to get over jet lag quickly?"],
          ["Get sunlight early in the day at your destination, keep meals on local time, avoid "
           "long naps and go easy on caffeine after noon."],
          ["I just landed back from five days in {city}. The highlight was {sight}, I could have "
           "stayed there all week.",
           "Got home last night from {city}; five days, and honestly {sight} was the best part."],
          ["Welcome back! Five days in {city} sounds wonderful, and {sight} is a great "
           "memory to keep. Ease back in with a light schedule for a day or two."],
          ["When was I in {city}?", "When did I come back from my trip abroad?"],
          ["What was the highlight of my trip to {city}?", "Which city did I spend five days in?"],
          "visit", "travel to {city}", "travelled to {city}"),
    Event("cars", {"car": ["a used Honda Civic", "a secondhand Mazda 3", "a used Toyota Corolla"],
                   "miles": ["42,000", "61,000", "38,500"]},
          ["How do I check whether a used car has been in an accident?"],
          ["Ask for a vehicle history report using the VIN, look for uneven panel gaps and "
           "paint overspray, and have an independent mechanic inspect it before you pay."],
          ["Well, too late for that, I signed the papers today: {car} with {miles} miles on it.",
           "I ended up buying it this afternoon, {car}, {miles} miles on the clock."],
          ["Congratulations on the car! With {miles} miles, check when the timing belt and "
           "brakes were last done, and keep the service records together."],
          ["When did I buy my car?", "When did I get the used car?"],
          ["How many miles did my car have when I bought it?", "Which car did I buy?"],
          "buy", "buy the car", "bought the car",
          ("Small update on the car: I traded it in for an electric hatchback last week.",
           "An electric hatchback is a nice change; plan where you'll charge it at home."),
          "What car do I drive now?"),
    Event("music", {"instrument": ["cello", "piano", "violin", "guitar"],
                    "teacher": ["Mrs. Alvarez", "a retired jazz player", "a conservatory student"]},
          ["Is it realistic to learn an instrument as an adult?"],
          ["Absolutely. Adults progress well with regular short practice, a good teacher and "
           "pieces they enjoy. Twenty minutes a day beats two hours once a week."],
          ["Good to hear, because I had my first {instrument} lesson tonight, with {teacher}. "
           "Lessons are on Tuesdays.",
           "I finally started {instrument} lessons this week! My teacher is {teacher}; we meet "
           "every Tuesday."],
          ["That's exciting! Starting {instrument} with {teacher} is a great step. Keep a small "
           "practice log and record yourself every few weeks to hear your progress."],
          ["When did I start learning an instrument?", "When did my music lessons begin?"],
          ["Who teaches me {instrument}?", "Which instrument am I learning?"],
          "start learning", "start {instrument} lessons", "started {instrument} lessons",
          ("My {instrument} lessons moved from Tuesdays to Thursday evenings, by the way.",
           "Thursday evenings it is; keep your practice routine the same on the other days."),
          "Which day are my {instrument} lessons on now?"),
    Event("health", {"injury": ["sprained my ankle", "pulled a muscle in my back",
                                "hurt my wrist"],
                     "place": ["playing five-a-side football", "on the climbing wall",
                               "moving a sofa"]},
          ["What's the best way to ice an injury?"],
          ["Wrap the ice pack in a thin towel, apply it for fifteen to twenty minutes every "
           "couple of hours in the first two days, and keep the area raised."],
          ["I {injury} {place} yesterday, so I'm stuck on the couch for a bit.",
           "Yesterday I {injury} {place}. The doctor says rest for two weeks."],
          ["Sorry to hear that! Rest, ice and gentle movement once the pain eases. If the "
           "swelling gets worse or you can't bear weight, go back to the doctor."],
          ["When did I get injured?", "When did I hurt myself?"],
          ["How did I get injured?", "What injury did I have?"],
          "injure", "get injured", "got injured"),
    Event("work", {"company": ["a logistics startup", "the city library", "a design agency",
                               "a hospital IT team"],
                   "role": ["data analyst", "project coordinator", "UX researcher"]},
          ["Can you help me write a short introduction to send to my new team?"],
          ["Happy to. A good intro says who you are, what you'll work on, one personal detail "
           "and an invitation to chat. What's the role?"],
          ["I'm joining {company} as a {role}. Today was my first day, actually!",
           "It's for {company}; I started there this morning as a {role}."],
          ["Congratulations on the new job! Here's a draft: 'Hi all, I'm the new {role}. "
           "I'm looking forward to learning how things work here and meeting each of you.'"],
          ["When did I start my new job?", "When was my first day at work?"],
          ["What is my job title?", "Where do I work now?"],
          "start", "start the new job", "started the new job"),
    Event("home", {"room": ["the kitchen", "the bathroom", "the spare bedroom"],
                   "color": ["sage green", "warm terracotta", "pale blue"]},
          ["Any tips for painting walls without making a mess?"],
          ["Use painter's tape on edges, cover the floor with drop cloths, load the roller "
           "evenly and paint in W shapes. Two thin coats are better than one thick one."],
          ["Thanks, we finished repainting {room} today, in {color}. It looks like a new house.",
           "Done! {room} is now {color}; we finished the second coat this afternoon."],
          ["{color} sounds lovely for {room}. Let it cure for a couple of weeks before "
           "scrubbing the walls, and keep a small jar of the paint for touch-ups."],
          ["When did we repaint the house?", "When did I finish the painting project?"],
          ["What colour did we paint {room}?", "Which room did we repaint?"],
          "repaint", "repaint {room}", "repainted {room}"),
    Event("fitness", {"race": ["a half marathon", "a 10K charity run", "a trail race"],
                      "time": ["1 hour 58 minutes", "52 minutes", "2 hours 11 minutes"]},
          ["How should I recover after a long race?"],
          ["Walk for a few minutes, drink water, eat something with carbs and protein within an "
           "hour, and keep the next two or three days easy."],
          ["I ran {race} this morning and finished in {time}!",
           "Just finished {race}: {time}. My legs are jelly."],
          ["Congratulations on finishing {race} in {time}! Take a few easy days, then decide "
           "on the next goal."],
          ["When did I run my race?", "When did I take part in a running event?"],
          ["What was my finishing time?", "What kind of race did I run?"],
          "run", "run the race", "ran the race"),
    Event("family", {"relative": ["sister", "brother", "cousin"],
                     "venue": ["a vineyard", "a lakeside lodge", "the old town hall"]},
          ["What's a good toast for a wedding that isn't cheesy?"],
          ["Keep it under two minutes: one short story about the couple, one sincere line about "
           "what you admire in them, then raise your glass."],
          ["It went well! My {relative} got married on Saturday at {venue}, and the toast got "
           "laughs.",
           "My {relative}'s wedding was this weekend, at {venue}. I gave the toast."],
          ["That's wonderful, congratulations to your {relative}! {venue} sounds like a "
           "beautiful setting."],
          ["When did my {relative} get married?", "When was the family wedding?"],
          ["Where did my {relative}'s wedding take place?", "Who got married?"],
          "celebrate", "go to the wedding", "went to the wedding"),
    Event("learning", {"course": ["an evening Spanish course", "an online statistics course",
                                  "a pottery class"],
                       "place": ["the community college", "a local studio", "the library"]},
          ["How do I stay motivated with a course after work?"],
          ["Fix the time in your calendar, prepare what you need the night before, pair up "
           "with a classmate and track small wins."],
          ["I signed up for {course} at {place}; the first session was tonight.",
           "Tonight I went to the first session of {course} at {place}."],
          ["Good for you! {course} at {place} is a great way to meet people too."],
          ["When did I begin my course?", "When did my classes start?"],
          ["What course did I sign up for?", "Where is my course held?"],
          "sign up for", "start the course", "started the course",
          ("Quick note: I switched from the evening group to the Saturday morning group.",
           "Saturday mornings may be easier to keep up with; good choice."),
          "When do I attend my course now?"),
    Event("garden", {"crop": ["tomatoes", "chilli peppers", "strawberries"],
                     "count": ["twelve", "eight", "twenty"]},
          ["How deep should I plant seedlings?"],
          ["Most seedlings go in at the depth they grew in the pot; tomatoes are the exception "
           "and can be planted deeper, up to the first leaves."],
          ["We planted {count} {crop} plants in the back garden today.",
           "Today I got {count} {crop} plants into the raised bed."],
          ["{count} {crop} plants is a great start. Water deeply at the base twice a week and "
           "mulch to keep the soil moist."],
          ["When did I plant my vegetable garden?", "When did I put the plants in the ground?"],
          ["What did I plant in the garden?", "How many plants did I put in?"],
          "plant", "plant the garden", "planted the garden"),
    Event("money", {"amount": ["$4,000", "$2,500", "$6,200"],
                    "goal": ["an emergency fund", "a trip to Japan", "a new laptop"]},
          ["What's a simple way to budget each month?"],
          ["Try the 50/30/20 rule: half for needs, thirty percent for wants and twenty for "
           "savings and debt. Automate the savings on payday."],
          ["I hit my savings goal today: {amount} put aside for {goal}.",
           "Today my savings account reached {amount}, which was my target for {goal}."],
          ["Reaching {amount} for {goal} is a real achievement. Keep the automatic transfer "
           "going while the habit is strong."],
          ["When did I reach my savings target?", "When did I finish saving up?"],
          ["How much did I save?", "What was I saving for?"],
          "save", "reach the savings goal", "reached the savings goal"),
    Event("reading", {"book": ["a thick biography of Ada Lovelace", "a Le Guin novel",
                               "a history of the Silk Road"],
                      "club": ["my neighbour's book club", "the office reading group"]},
          ["How do you lead a book club discussion?"],
          ["Prepare five open questions, start with first impressions, move to characters and "
           "themes, and end by rating the book."],
          ["I'm hosting {club} for the first time tonight; we read {book}.",
           "Tonight I hosted {club}, we discussed {book}."],
          ["Hosting {club} with {book} sounds fun. Snacks and a relaxed start help a lot."],
          ["When did I host the book club?", "When was my turn to lead the reading group?"],
          ["Which book did we discuss when I hosted?", "Whose book club did I host?"],
          "host", "host the book club", "hosted the book club"),
    Event("moving", {"area": ["a two-bedroom flat near the river", "a small house on Elm Street",
                              "an apartment downtown"]},
          ["How do I pack a kitchen for a move?"],
          ["Wrap plates vertically in paper, fill gaps with towels, label each box with its "
           "room and keep an essentials box with a kettle and a few mugs."],
          ["We got the keys today! We're moving into {area}.",
           "We finally moved into {area}. Boxes everywhere."],
          ["Congratulations on the move to {area}! Unpack the bedroom and kitchen first so the "
           "first nights feel normal."],
          ["When did I move house?", "When did we get the keys to the new place?"],
          ["Where did we move to?"],
          "move into", "move house", "moved house"),
    Event("tech", {"device": ["a new laptop", "a refurbished tablet", "a mirrorless camera"],
                   "shop": ["the electronics store downtown", "an online marketplace"]},
          ["Which settings should I change first on a new device?"],
          ["Turn on automatic updates, set up a backup, use a password manager and review "
           "which apps can see your location."],
          ["I picked up {device} from {shop} today, so I'm setting it up now.",
           "Got {device} today, bought from {shop}."],
          ["Enjoy {device}! Set up the backup first, before you put anything important on it."],
          ["When did I buy my new gadget?", "When did I get the device?"],
          ["What did I buy from {shop}?", "Where did I buy {device}?"],
          "buy", "buy the device", "bought the device"),
    Event("volunteer", {"org": ["the food bank", "an animal shelter", "a literacy charity"],
                        "task": ["sorting donations", "walking dogs", "tutoring kids"]},
          ["How do I find volunteering that fits around a job?"],
          ["Look for organisations with weekend or evening shifts, start with one regular slot "
           "a month and say clearly how much time you can give."],
          ["I did my first shift at {org} today, {task}.",
           "Today was my first volunteering day at {org}: {task} all afternoon."],
          ["That's a generous way to spend the day. {task} at {org} must feel rewarding."],
          ["When did I start volunteering?", "When was my first volunteer shift?"],
          ["Where do I volunteer?", "What did I do at my first volunteer shift?"],
          "volunteer", "start volunteering", "started volunteering"),
]
