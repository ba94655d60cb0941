"""Help requests on the topics of bench/chat_texts.py's events that hold no event: the
distractors bench/make_chats.py puts around the events."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Filler:
    topic: str
    pairs: list[tuple[str, str]] = field(default_factory=list)


FILLERS = [
    Filler("pets", [("How often should a puppy be fed?",
                     "Puppies usually eat three to four small meals a day until about six "
                     "months, then two meals. Follow the amounts on the food, adjusted for "
                     "their weight.")]),
    Filler("pets", [("What dog breeds are good for apartments?",
                     "Smaller, calmer breeds like cavaliers, French bulldogs and greyhounds "
                     "(who sleep a lot) do well, but exercise matters more than size.")]),
    Filler("pets", [("My neighbour's dog barks all day. How do I bring it up politely?",
                     "Pick a calm moment, mention the times it happens, assume they don't know, "
                     "and suggest something concrete like a dog walker.")]),
    Filler("travel", [("What should I pack for a week-long trip in spring?",
                       "Layers: a light jacket, a sweater, two pairs of trousers, comfortable "
                       "shoes, an umbrella and a small first-aid kit.")]),
    Filler("travel", [("Is it cheaper to book flights on Tuesdays?",
                       "Not reliably. Prices depend on demand; book one to three months ahead "
                       "for short trips and set fare alerts.")]),
    Filler("travel", [("Can you suggest a three-day itinerary for a city break?",
                       "Day one: old town and a museum. Day two: a market, a park and a long "
                       "dinner. Day three: a neighbourhood off the tourist track.")]),
    Filler("cars", [("How often should I change the oil?",
                     "Most modern cars need an oil change every 10,000 to 15,000 km or once a "
                     "year; check the manual for your model.")]),
    Filler("cars", [("What does the tyre pressure warning light mean?",
                     "One or more tyres are under-inflated. Check all four with a gauge when "
                     "they're cold and inflate to the pressure on the door sticker.")]),
    Filler("music", [("How do I practise scales without getting bored?",
                      "Vary rhythm and dynamics, use a drone note, play them in thirds and set a "
                      "short timer so practice stays focused.")]),
    Filler("music", [("What's a good metronome app?",
                      "Most free metronome apps are fine; look for subdivisions, tap tempo and a "
                      "practice log.")]),
    Filler("health", [("How much water should I drink a day?",
                       "Around two litres for most adults, more in the heat or when exercising; "
                       "thirst and pale urine are good guides.")]),
    Filler("health", [("How can I sleep better?",
                       "Keep a regular bedtime, dim the lights an hour before, keep the room "
                       "cool and leave the phone outside the bedroom.")]),
    Filler("work", [("Can you help me write an out-of-office message?",
                     "Sure: 'I'm out of the office until Monday with limited access to email. "
                     "For urgent matters, please contact my colleague.'")]),
    Filler("work", [("How do I ask my manager for feedback?",
                     "Ask a specific question, like 'what's one thing I could do better in the "
                     "weekly report?', and ask for it regularly, not only at reviews.")]),
    Filler("home", [("How do I get rid of mould in the bathroom?",
                     "Ventilate, scrub with a mould cleaner or diluted bleach, dry the surfaces "
                     "and run the extractor fan after showers.")]),
    Filler("home", [("What plants survive in a dark room?",
                     "Snake plants, ZZ plants and pothos tolerate low light and forget-me "
                     "watering.")]),
    Filler("fitness", [("How do I start running as a beginner?",
                        "Alternate running and walking, three times a week, and increase the "
                        "running bits a little each week. A couch-to-5K plan works well.")]),
    Filler("fitness", [("What stretches help tight hamstrings?",
                        "Try a standing forward fold, a seated hamstring stretch and leg swings; "
                        "hold static stretches for about thirty seconds after exercise.")]),
    Filler("family", [("What's a thoughtful gift for my parents' anniversary?",
                       "A photo book of their years together, a dinner at the place they had "
                       "their first date, or a framed letter from the family.")]),
    Filler("learning", [("How do I memorise vocabulary in a new language?",
                         "Use spaced repetition flashcards, learn words in phrases, and say "
                         "them out loud. Ten new words a day adds up.")]),
    Filler("garden", [("Why are the leaves on my plants turning yellow?",
                       "Often over-watering or lack of nitrogen. Let the soil dry a little "
                       "between waterings and feed with a balanced fertiliser.")]),
    Filler("garden", [("When is the best time to water a garden?",
                       "Early morning, so the water reaches the roots before the heat and the "
                       "leaves dry during the day.")]),
    Filler("money", [("Should I pay off debt or save first?",
                      "Keep a small emergency fund first, then pay down high-interest debt, "
                      "then build savings.")]),
    Filler("money", [("What's the difference between a Roth and a traditional IRA?",
                      "Roth contributions are taxed now and withdrawals later are tax-free; "
                      "traditional ones are deducted now and taxed when withdrawn.")]),
    Filler("reading", [("Can you recommend a short classic novel?",
                        "Try 'Of Mice and Men', 'The Old Man and the Sea' or 'Breakfast at "
                        "Tiffany's'; each is under 150 pages.")]),
    Filler("moving", [("Do I need to tell anyone when I change address?",
                       "Your bank, employer, doctor, insurance, the electoral roll and any "
                       "subscriptions; set up mail forwarding for a few months.")]),
    Filler("tech", [("How do I free up space on my phone?",
                     "Delete apps you don't use, offload old photos to cloud storage and clear "
                     "the cache of messaging apps.")]),
    Filler("tech", [("Is it worth buying an extended warranty for electronics?",
                     "Usually not: most faults show up within the manufacturer's warranty, and "
                     "card protections often cover more.")]),
    Filler("volunteer", [("How do I write a volunteer application?",
                          "Say why the cause matters to you, what skills you bring and when "
                          "you're available. Keep it to half a page.")]),
    Filler("cooking", [("Can you give me a quick weeknight pasta recipe?",
                        "Cook spaghetti, fry garlic and chilli in olive oil, add a tin of "
                        "tomatoes, simmer ten minutes, toss with the pasta and parmesan."),
                       ("Can I make it without tomatoes?",
                        "Yes: aglio, olio e peperoncino is just garlic, chilli, oil and "
                        "parsley, with a splash of the pasta water.")]),
    Filler("cooking", [("How do I keep herbs fresh longer?",
                        "Treat soft herbs like flowers, stems in a jar of water in the fridge; "
                        "wrap hard herbs in a damp paper towel.")]),
    Filler("writing", [("Can you proofread this sentence: 'Their going to the park later.'",
                        "It should be 'They're going to the park later.' 'They're' is short "
                        "for 'they are'.")]),
    Filler("writing", [("How do I write a complaint email to a landlord about the heating?",
                        "State the problem and when it started, what you've already tried, "
                        "what you'd like done and by when, and keep a copy.")]),
    Filler("weather", [("What's the difference between weather and climate?",
                        "Weather is what happens day to day; climate is the pattern of weather "
                        "over decades in a region.")]),
]
