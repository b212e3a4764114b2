"""Verbs, adjectives, adverbs, prepositions, numerals and conjunctions (EN-DE).

VERBS: ``english|German 3sg|German 3pl|particle|frame|subject classes|object
classes``. The English side is the base form; extra words carry the tag that
places them in the tree (``give up:RP``, ``wait for:IN``, ``take care:NN of:IN``).
The particle (``-`` for none) is the German separable prefix: it stands at the
clause end in main clauses and is joined to the verb in verb-final clauses.
Frames: ``none``, ``acc``, ``dat``, ``ditr`` (accusative object plus a dative
recipient, English "to"), ``clause`` (a dass-clause) and ``prep:P:CASE``
(prepositional object); a ``refl+`` prefix adds the reflexive "sich".
Classes are the noun classes of ``lexicon_nouns`` (``*`` = any).
"""

VERBS = """
see|sieht|sehen|-|acc|pa|*
like|mag|mögen|-|acc|p|*
buy|kauft|kaufen|-|acc|p|tf
find|findet|finden|-|acc|pa|tfa
lose|verliert|verlieren|-|acc|p|t
carry|trägt|tragen|-|acc|pa|tf
hold|hält|halten|-|acc|p|tfa
open|öffnet|öffnen|-|acc|p|t
close|schließt|schließen|-|acc|p|t
read|liest|lesen|-|acc|p|x
write|schreibt|schreiben|-|acc|p|x
draw|zeichnet|zeichnen|-|acc|p|patl
paint|malt|malen|-|acc|p|patl
eat|isst|essen|-|acc|pa|f
cook|kocht|kochen|-|acc|p|f
wash|wäscht|waschen|-|acc|p|pat
clean|putzt|putzen|-|acc|p|tl
build|baut|bauen|-|acc|p|tl
repair|repariert|reparieren|-|acc|p|t
visit|besucht|besuchen|-|acc|p|pl
love|liebt|lieben|-|acc|pa|*
hate|hasst|hassen|-|acc|pa|*
need|braucht|brauchen|-|acc|pa|tf
take|nimmt|nehmen|-|acc|p|tf
catch|fängt|fangen|-|acc|pa|at
meet|trifft|treffen|-|acc|p|p
know|kennt|kennen|-|acc|p|pal
ask|fragt|fragen|-|acc|p|p
forget|vergisst|vergessen|-|acc|p|tx
describe|beschreibt|beschreiben|-|acc|p|*
choose|wählt|wählen|-|acc|p|tfx
explain|erklärt|erklären|-|acc|p|x
follow|folgt|folgen|-|dat|pa|pa
help|hilft|helfen|-|dat|pa|pa
thank|dankt|danken|-|dat|p|p
believe|glaubt|glauben|-|dat|p|p
belong to:TO|gehört|gehören|-|dat|tfa|p
call|ruft|rufen|an|acc|p|p
invite|lädt|laden|ein|acc|p|p
pick up:RP|holt|holen|ab|acc|p|pt
give up:RP|gibt|geben|auf|acc|p|x
turn on:RP|schaltet|schalten|ein|acc|p|t
turn off:RP|schaltet|schalten|aus|acc|p|t
put on:RP|zieht|ziehen|an|acc|p|t
take off:RP|zieht|ziehen|aus|acc|p|t
tidy up:RP|räumt|räumen|auf|acc|p|l
write down:RP|schreibt|schreiben|auf|acc|p|x
throw away:RP|wirft|werfen|weg|acc|p|tf
bring back:RP|bringt|bringen|zurück|acc|p|t
look at:IN|sieht|sehen|an|acc|pa|*
find out:RP|findet|finden|heraus|acc|p|x
try on:RP|probiert|probieren|an|acc|p|t
set up:RP|baut|bauen|auf|acc|p|t
wake up:RP|weckt|wecken|auf|acc|p|pa
carry out:RP|führt|führen|durch|acc|p|x
look for:IN|sucht|suchen|-|acc|pa|*
pay for:IN|bezahlt|bezahlen|-|acc|p|tf
listen to:TO|hört|hören|zu|dat|pa|p
wait for:IN|wartet|warten|-|prep:auf:acc|pa|pat
think about:IN|denkt|denken|nach|prep:über:acc|p|*
take care:NN of:IN|kümmert|kümmern|-|refl+prep:um:acc|p|patl
talk about:IN|spricht|sprechen|-|prep:über:acc|p|*
dream of:IN|träumt|träumen|-|prep:von:dat|p|*
laugh at:IN|lacht|lachen|-|prep:über:acc|p|*
ask for:IN|bittet|bitten|-|prep:um:acc|p|tfx
look after:IN|passt|passen|auf|prep:auf:acc|p|pa
get rid:JJ of:IN|wird|werden|los|acc|p|tx
run|läuft|laufen|-|none|pa|-
sleep|schläft|schlafen|-|none|pa|-
laugh|lacht|lachen|-|none|p|-
sing|singt|singen|-|none|pa|-
dance|tanzt|tanzen|-|none|p|-
work|arbeitet|arbeiten|-|none|p|-
swim|schwimmt|schwimmen|-|none|pa|-
cry|weint|weinen|-|none|p|-
wait|wartet|warten|-|none|pa|-
smile|lächelt|lächeln|-|none|p|-
play|spielt|spielen|-|none|pa|-
fall|fällt|fallen|-|none|pat|-
jump|springt|springen|-|none|pa|-
get up:RP|steht|stehen|auf|none|pa|-
wake up:RP|wacht|wachen|auf|none|pa|-
come back:RP|kommt|kommen|zurück|none|pa|-
fall asleep:JJ|schläft|schlafen|ein|none|pa|-
go out:RP|geht|gehen|aus|none|p|-
calm down:RP|beruhigt|beruhigen|-|refl+none|pa|-
sit down:RP|setzt|setzen|-|refl+none|pa|-
lie down:RP|legt|legen|hin|refl+none|pa|-
show up:RP|taucht|tauchen|auf|none|pa|-
set off:RP|bricht|brechen|auf|none|p|-
hurry up:RP|beeilt|beeilen|-|refl+none|p|-
get dressed:VBN|zieht|ziehen|an|refl+none|p|-
give|gibt|geben|-|ditr|p|tf
show|zeigt|zeigen|-|ditr|p|tfx
send|schickt|schicken|-|ditr|p|t
bring|bringt|bringen|-|ditr|p|tf
sell|verkauft|verkaufen|-|ditr|p|tf
lend|leiht|leihen|-|ditr|p|t
say|sagt|sagen|-|clause|p|-
think|glaubt|glauben|-|clause|p|-
know|weiß|wissen|-|clause|p|-
hope|hofft|hoffen|-|clause|p|-
notice|bemerkt|bemerken|-|clause|p|-
hear|hört|hören|-|clause|p|-
"""

# english|predicative German|inflection stem|noun classes it may describe
ADJECTIVES = """
big|groß|groß|*
small|klein|klein|*
old|alt|alt|patl
new|neu|neu|tlx
young|jung|jung|pa
red|rot|rot|tf
blue|blau|blau|t
green|grün|grün|tfl
yellow|gelb|gelb|tf
black|schwarz|schwarz|ta
white|weiß|weiß|ta
brown|braun|braun|taf
beautiful|schön|schön|*
ugly|hässlich|hässlich|patl
long|lang|lang|tx
short|kurz|kurz|tx
heavy|schwer|schwer|taf
expensive|teuer|teur|tf
cheap|billig|billig|tf
happy|glücklich|glücklich|pa
sad|traurig|traurig|pa
tired|müde|müd|pa
hungry|hungrig|hungrig|pa
friendly|freundlich|freundlich|pa
clever|klug|klug|pa
strong|stark|stark|pa
fast|schnell|schnell|pat
slow|langsam|langsam|pat
quiet|ruhig|ruhig|pal
loud|laut|laut|pal
warm|warm|warm|tfl
cold|kalt|kalt|tfl
fresh|frisch|frisch|f
sweet|süß|süß|fa
dark|dunkel|dunkl|tl
clean|sauber|sauber|tl
dirty|schmutzig|schmutzig|tla
empty|leer|leer|tl
famous|berühmt|berühmt|plx
funny|lustig|lustig|pax
interesting|interessant|interessant|xtl
boring|langweilig|langweilig|x
important|wichtig|wichtig|xp
difficult|schwierig|schwierig|x
easy|einfach|einfach|x
nice|nett|nett|p
lazy|faul|faul|pa
brave|mutig|mutig|pa
rich|reich|reich|p
poor|arm|arm|p
wild|wild|wild|a
round|rund|rund|tf
soft|weich|weich|tf
wet|nass|nass|ta
"""

# english|German|kind: freq adverbs precede the English verb, time adverbs close
ADVERBS = """
often|oft|freq
always|immer|freq
sometimes|manchmal|freq
usually|meistens|freq
rarely|selten|freq
never|nie|freq
today|heute|time
tomorrow|morgen|time
now|jetzt|time
again|wieder|time
soon|bald|time
later|später|time
here|hier|time
"""

# english|German|case|object classes; English may be multi-word (in front of)
PREPOSITIONS = """
with|mit|dat|pat
on|auf|dat|t
under|unter|dat|t
behind|hinter|dat|tl
in front of|vor|dat|tl
next/JJ to/TO|neben|dat|tl
from|aus|dat|l
without|ohne|acc|pat
for|für|acc|pa
in|in|dat|l
near|bei|dat|pl
above|über|dat|t
opposite|gegenüber|dat|l
at|an|dat|t
"""

NUMERALS = """
two|zwei
three|drei
four|vier
five|fünf
six|sechs
seven|sieben
eight|acht
nine|neun
ten|zehn
twelve|zwölf
twenty|zwanzig
"""

# english|German: adverbial subordinators, all taking a verb-final German clause
SUBORDINATORS = """
because|weil
when|wenn
if|wenn
although|obwohl
even/RB though/IN|obwohl
before|bevor
while|während
as/RB soon/RB as/IN|sobald
"""
