"""The observation as planes (moved to :mod:`paohuzi.planes`, which needs NumPy only, so the
learned bot plays without the environments' dependencies; D126). Kept for its importers."""

from paohuzi.planes import (
    CHOU as CHOU,
)
from paohuzi.planes import (
    CHOU_HU as CHOU_HU,
)
from paohuzi.planes import (
    DEALER as DEALER,
)
from paohuzi.planes import (
    DECISION as DECISION,
)
from paohuzi.planes import (
    DISCARDED as DISCARDED,
)
from paohuzi.planes import (
    HAND as HAND,
)
from paohuzi.planes import (
    HAND_SIZES as HAND_SIZES,
)
from paohuzi.planes import (
    HIDDEN_WEI as HIDDEN_WEI,
)
from paohuzi.planes import (
    HISTORY_EVENTS as HISTORY_EVENTS,
)
from paohuzi.planes import (
    HISTORY_WIDTH as HISTORY_WIDTH,
)
from paohuzi.planes import (
    KANS as KANS,
)
from paohuzi.planes import (
    LAST_ROW as LAST_ROW,
)
from paohuzi.planes import (
    LIANG as LIANG,
)
from paohuzi.planes import (
    OFFER as OFFER,
)
from paohuzi.planes import (
    PLANES as PLANES,
)
from paohuzi.planes import (
    SCALARS as SCALARS,
)
from paohuzi.planes import (
    SOURCE as SOURCE,
)
from paohuzi.planes import (
    TABLE as TABLE,
)
from paohuzi.planes import (
    TABLE_PLANES as TABLE_PLANES,
)
from paohuzi.planes import (
    TURN as TURN,
)
from paohuzi.planes import (
    UNSEEN as UNSEEN,
)
from paohuzi.planes import (
    WALL as WALL,
)
from paohuzi.planes import (
    Layout as Layout,
)
from paohuzi.planes import (
    action_mask as action_mask,
)
from paohuzi.planes import (
    encode as encode,
)
from paohuzi.planes import (
    encode_history as encode_history,
)
from paohuzi.planes import (
    layout as layout,
)
from paohuzi.planes import (
    observation_arrays as observation_arrays,
)
from paohuzi.planes import (
    planes as planes,
)
